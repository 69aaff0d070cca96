#include "marian/folder.h"

#include <fnmatch.h>

#include <algorithm>

#include "marian/gzip.h"
#include "tformer/error.h"
#include "util/printable.h"

namespace tformer::marian {
namespace {

bool ends_with_gz(const std::string& name) {
  if (name.size() <= 3) return false;
  const std::string tail = name.substr(name.size() - 3);
  return tail == ".gz" || tail == ".GZ" || tail == ".Gz" || tail == ".gZ";
}

std::string basename(const std::string& path) {
  const size_t slash = path.find_last_of("/\\");
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

Folder::Folder(MarianFileSource& source) : source_(source) {
  for (const std::string& file : source.names()) {
    std::string name = basename(file);
    if (name.empty()) throw Error("a model file has an empty name");
    const bool gz = ends_with_gz(name);
    if (gz) name.resize(name.size() - 3);
    auto it = files_.find(name);
    if (it != files_.end()) {
      if (it->second.gz == gz) throw Error("two files are named " + printable(basename(file)));
      if (gz) continue;  // the plain file is there already
    }
    files_[name] = Entry{file, gz, {}, false};
  }
}

std::vector<std::string> Folder::glob(const std::string& pattern) const {
  std::vector<std::string> out;
  for (const auto& [name, e] : files_) {
    if (name[0] != '.' && fnmatch(pattern.c_str(), name.c_str(), 0) == 0) out.push_back(name);
  }
  return out;  // sorted: the map's order
}

std::vector<std::string> Folder::find(std::initializer_list<const char*> patterns) const {
  std::vector<std::string> out;
  for (const char* p : patterns) {
    for (auto& n : glob(p)) {
      if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
    }
  }
  return out;
}

MarianBytes Folder::bytes(const std::string& name, FileKind kind) {
  Entry& e = files_.at(name);
  const size_t limit = limit_of(kind);
  if (!e.gz) {
    const MarianBytes b = source_.read(e.file, limit);
    if (b.size > limit) {  // a source that did not keep to the limit
      throw Error(printable(e.file) + ": " + std::to_string(b.size) + " bytes, more than a " + name_of(kind) +
                  " file may hold (" + size_text(limit) + ")");
    }
    return b;
  }
  if (!e.read) {
    // Compressed data is never larger than what it holds by more than a few bytes per block.
    const MarianBytes packed = source_.read(e.file, limit + limit / 64 + 1024);
    e.inflated = gunzip(packed.data, packed.size, limit, printable(e.file), name_of(kind));
    e.read = true;
  }
  return {e.inflated.data(), e.inflated.size()};
}

std::string Folder::text(const std::string& name, FileKind kind) {
  const MarianBytes b = bytes(name, kind);
  return std::string(reinterpret_cast<const char*>(b.data), b.size);
}

void Folder::release(const std::string& name) {
  auto it = files_.find(name);
  if (it == files_.end()) return;
  it->second.inflated = {};
  it->second.read = false;
}

}  // namespace tformer::marian
