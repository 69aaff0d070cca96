// The files of a Marian model folder as the importer sees them: known by name (a `.gz` copy by the
// name of what it holds; a plain file of that name wins), read only when the import needs them,
// each within the size limit of its kind, and decompressed once.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "marian/limits.h"
#include "tformer/marian.h"

namespace tformer::marian {

class Folder {
 public:
  explicit Folder(MarianFileSource& source);

  bool has(const std::string& name) const { return files_.count(name) != 0; }
  // Names matching a shell pattern (fnmatch), sorted. Hidden files (".name", such as the "._x"
  // copies macOS leaves in archives) never match.
  std::vector<std::string> glob(const std::string& pattern) const;
  // Several patterns in order, each name once.
  std::vector<std::string> find(std::initializer_list<const char*> patterns) const;

  // The content of `name` (decompressed for a .gz copy). Throws tformer::Error naming the file when
  // it is larger than `kind` allows or cannot be read.
  MarianBytes bytes(const std::string& name, FileKind kind);
  std::string text(const std::string& name, FileKind kind);
  // Frees what a .gz copy decompressed to (the model's bytes, once converted).
  void release(const std::string& name);

 private:
  struct Entry {
    std::string file;  // the name in the source (with .gz)
    bool gz = false;
    std::vector<uint8_t> inflated;
    bool read = false;
  };
  MarianFileSource& source_;
  std::map<std::string, Entry> files_;
};

}  // namespace tformer::marian
