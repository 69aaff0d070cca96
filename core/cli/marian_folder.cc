#include "marian_folder.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "marian/limits.h"
#include "util/printable.h"

namespace tformer::cli {
namespace {

std::string name_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a pipe";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a file";
}

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

}  // namespace

MarianFolder::MarianFolder(const std::string& folder, const std::vector<std::string>& named_paths) {
  for (const std::string& p : named_paths) paths_.emplace(name_of(p), p);
  DIR* dir = opendir(folder.c_str());
  if (!dir) throw Error("cannot read folder '" + printable(folder) + "': " + std::strerror(errno));
  while (const dirent* e = readdir(dir)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    const std::string path = folder + "/" + name;
    struct stat st {};
    if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) continue;  // a subfolder holds no model file
    paths_.emplace(name, path);  // a named path of this name is kept
  }
  closedir(dir);
}

std::vector<std::string> MarianFolder::names() const {
  std::vector<std::string> n;
  for (const auto& [name, path] : paths_) n.push_back(name);
  return n;
}

MarianBytes MarianFolder::read(const std::string& name, size_t limit) {
  auto done = read_.find(name);
  if (done != read_.end()) return {done->second.data(), done->second.size()};
  const std::string& path = paths_.at(name);
  const std::string shown = "'" + printable(path) + "'";
  // O_NONBLOCK: opening a FIFO does not wait for a writer (the type is then refused).
  Fd f{open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (f.fd < 0) throw Error("cannot open " + shown + ": " + std::strerror(errno));
  struct stat st {};
  if (fstat(f.fd, &st) != 0) throw Error("cannot read " + shown + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) throw Error(shown + " is " + kind_of(st.st_mode) + ", not a regular file");
  if (uint64_t(st.st_size) > limit) {
    throw Error(shown + " has " + std::to_string(st.st_size) + " bytes, more than the " + marian::size_text(limit) +
                " a file of its kind may hold");
  }
  std::vector<uint8_t> bytes(size_t(st.st_size));
  size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = ::read(f.fd, bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error("cannot read " + shown + ": " + std::strerror(errno));
    if (n == 0) throw Error(shown + " changed while it was read (it is shorter than its size)");
    got += size_t(n);
  }
  auto& kept = read_[name] = std::move(bytes);
  return {kept.data(), kept.size()};
}

}  // namespace tformer::cli
