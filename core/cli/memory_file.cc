#include "memory_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>

#include "catalog_client.h"
#include "util/printable.h"

namespace tformer::cli {
namespace {

void warn(const std::string& message) { std::cerr << "tformer: warning: " << printable(message) << "\n"; }

// Creates the folder and its parents; false (with errno) when one cannot be made.
bool make_dirs(const std::string& path) {
  for (size_t at = 1; at <= path.size(); ++at)
    if (at == path.size() || path[at] == '/')
      if (mkdir(path.substr(0, at).c_str(), 0755) != 0 && errno != EEXIST) return false;
  return true;
}

}  // namespace

MemoryFile::MemoryFile(const std::string& cache_dir)
    : dir_(cache_dir.empty() ? default_cache_dir() : cache_dir), path_(dir_ + "/translation-memory.bin") {}

std::shared_ptr<TranslationMemory> MemoryFile::open() const {
  auto memory = std::make_shared<TranslationMemory>();
  std::ifstream in(path_, std::ios::binary);
  if (!in) {
    if (errno != ENOENT) warn("cannot read the translation memory '" + path_ + "' (" + std::strerror(errno) + "); starting an empty one");
    return memory;
  }
  const std::string image((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) {
    warn("cannot read the translation memory '" + path_ + "'; starting an empty one");
    return memory;
  }
  const std::string refused = memory->load(image);
  if (!refused.empty()) warn("'" + path_ + "': " + refused + "; it is ignored and will be rewritten");
  return memory;
}

void MemoryFile::save(const TranslationMemory& memory) const {
  if (!make_dirs(dir_)) {
    warn("cannot create the cache folder '" + dir_ + "' (" + std::strerror(errno) + "); the translation memory is not saved");
    return;
  }
  const std::string image = memory.save();
  const std::string tmp = path_ + ".part-" + std::to_string(getpid());
  std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
  out.write(image.data(), std::streamsize(image.size()));
  out.close();
  if (!out || std::rename(tmp.c_str(), path_.c_str()) != 0) {
    std::remove(tmp.c_str());
    warn("cannot write the translation memory '" + path_ + "'; it is not saved");
  }
}

bool MemoryFile::clear() const {
  if (std::remove(path_.c_str()) == 0) return true;
  if (errno == ENOENT) return false;
  throw Error("cannot remove the translation memory '" + path_ + "': " + std::strerror(errno));
}

}  // namespace tformer::cli
