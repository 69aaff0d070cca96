// The CLI's translation memory on disk (tformer translate --memory): one file in the cache folder,
// DIR/translation-memory.bin (DIR: --cache, else $XDG_CACHE_HOME/tformer or ~/.cache/tformer),
// read at the start and written back at the end. A file that cannot be read or is not a memory
// (truncated, damaged, written by something else) is reported on stderr and replaced: the
// memory only ever saves work, so nothing about it stops a translation.
#pragma once

#include <memory>
#include <string>

#include "tformer/translation_memory.h"

namespace tformer::cli {

class MemoryFile {
 public:
  // `cache_dir`: empty for the default cache folder.
  explicit MemoryFile(const std::string& cache_dir);

  const std::string& path() const { return path_; }
  // The memory with the file's entries (none when there is no file or it is refused).
  std::shared_ptr<TranslationMemory> open() const;
  // Writes the memory to the file (under a temporary name renamed into place); a failure is a
  // warning on stderr.
  void save(const TranslationMemory& memory) const;
  // Removes the file; false when there was none.
  bool clear() const;

 private:
  std::string dir_, path_;
};

}  // namespace tformer::cli
