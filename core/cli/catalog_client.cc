// Fetching through libcurl and the cache on disk (catalog_client.h).
#include "catalog_client.h"

#include <curl/curl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>

namespace tformer::cli {
namespace cat = tformer::catalog;

namespace {

Error download_error(const std::string& detail) { return Error(ErrorCode::kDownload, Phase::kDownload, detail); }

bool exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

void make_dirs(const std::string& path) {
  for (size_t at = 1; at <= path.size(); ++at) {
    if (at == path.size() || path[at] == '/') {
      const std::string part = path.substr(0, at);
      if (mkdir(part.c_str(), 0755) != 0 && errno != EEXIST)
        throw Error(ErrorCode::kDownload, Phase::kDownload, "cannot create the cache folder '" + part + "': " + std::strerror(errno));
    }
  }
}

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Written under a temporary name and renamed: a reader sees the whole file or none.
void write_atomically(const std::string& path, const void* data, size_t size) {
  const std::string tmp = path + ".part-" + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(static_cast<const char*>(data), std::streamsize(size));
    out.close();
    if (!out) {
      std::remove(tmp.c_str());
      throw download_error("cannot write '" + tmp + "' in the cache");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw download_error("cannot write '" + path + "' in the cache: " + std::strerror(errno));
  }
}

std::string megabytes(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MB", double(bytes) / 1e6);
  return text;
}

struct Transfer {
  std::vector<uint8_t> bytes;
  uint64_t max_bytes = 0;
  bool over = false;
  // Progress over all the files of a request: those done, this one, the total.
  bool show = false;
  uint64_t done = 0, total = 0;
  std::string what;
  int last_percent = -1;
};

size_t on_data(char* data, size_t one, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t size = one * n;
  if (t->bytes.size() + size > t->max_bytes) {
    t->over = true;
    return 0;  // stops the transfer
  }
  t->bytes.insert(t->bytes.end(), data, data + size);
  return size;
}

int on_progress(void* user, curl_off_t, curl_off_t now, curl_off_t, curl_off_t) {
  auto* t = static_cast<Transfer*>(user);
  if (!t->show || t->total == 0) return 0;
  const uint64_t at = t->done + uint64_t(now);
  const int percent = int(100.0 * double(at) / double(t->total));
  if (percent != t->last_percent) {
    t->last_percent = percent;
    std::fprintf(stderr, "\rtformer: downloading %s: %s of %s (%d%%)   ", t->what.c_str(), megabytes(at).c_str(),
                 megabytes(t->total).c_str(), percent);
    std::fflush(stderr);
  }
  return 0;
}

// The language pair's files as a whole: "fr->en, en->de".
std::string plan_name(const cat::Plan& p) {
  std::string s;
  for (const auto& m : p.steps) s += (s.empty() ? "" : ", ") + m.source + "->" + m.target;
  return s;
}

// A path made absolute with every link and '..' resolved (as far as it exists), without a
// trailing empty part, so that two paths compare part by part.
std::filesystem::path resolved(const std::string& path) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
  if (ec) throw download_error("cannot resolve the cache path '" + path + "': " + ec.message());
  if (p.filename().empty()) p = p.parent_path();
  return p;
}

// Whether `path` is `root` or lies below it.
bool lies_within(const std::filesystem::path& path, const std::filesystem::path& root) {
  auto p = path.begin();
  for (auto r = root.begin(); r != root.end(); ++r, ++p)
    if (p == path.end() || *p != *r) return false;
  return true;
}

}  // namespace

std::string default_cache_dir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/tformer";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/tformer";
  throw download_error("no cache folder: set XDG_CACHE_HOME or HOME, or pass --cache DIR");
}

CatalogClient::CatalogClient(CatalogSettings settings) : s_(std::move(settings)) {
  if (s_.cache_dir.empty()) s_.cache_dir = default_cache_dir();
  curl_global_init(CURL_GLOBAL_DEFAULT);
}

CatalogClient::~CatalogClient() { curl_global_cleanup(); }

// One folder per catalogue URL, named by its hash (a URL is no file name).
std::string CatalogClient::catalog_dir() const {
  const std::string& url = s_.server;
  return s_.cache_dir + "/catalog-" +
         cat::sha256_hex(reinterpret_cast<const uint8_t*>(url.data()), url.size()).substr(0, 16);
}

// The record fields in this path matched strict patterns when the records were read
// (parse_records); every write and removal is checked by within_cache() all the same.
std::string CatalogClient::model_dir(const cat::Model& m) const {
  std::string version = m.version;
  for (char& c : version)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-') c = '_';
  return catalog_dir() + "/" + m.source + "-" + m.target + "/" + version + "-" +
         (m.architecture.empty() ? "model" : m.architecture);
}

// The cache writes and deletes nothing outside its folder: the path, with links and '..'
// resolved, must lie strictly below the cache folder, or the action is refused.
std::string CatalogClient::within_cache(const std::string& path, const char* action) const {
  const std::filesystem::path root = resolved(s_.cache_dir), at = resolved(path);
  if (at == root || !lies_within(at, root))
    throw download_error(std::string("refusing to ") + action + " '" + path + "': it lies outside the cache folder " +
                         s_.cache_dir);
  return path;
}

std::vector<uint8_t> CatalogClient::download(const std::string& url, uint64_t size, const std::string& what,
                                             uint64_t done, uint64_t total) {
  Transfer t;
  t.max_bytes = size;
  t.show = s_.progress && isatty(2);
  t.done = done;
  t.total = total;
  t.what = what;
  CURL* curl = curl_easy_init();
  if (!curl) throw Error(ErrorCode::kResources, Phase::kDownload, "cannot start libcurl");
  char error[CURL_ERROR_SIZE] = "";
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(curl, CURLOPT_MAXREDIRS, 5L);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 30L);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);  // stalled for a minute: give up
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, 60L);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "tformer");
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_data);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &t);
  const CURLcode rc = curl_easy_perform(curl);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_cleanup(curl);
  if (t.show) std::fprintf(stderr, "\n");
  if (t.over) throw download_error(url + " sends more than the " + std::to_string(size) + " bytes its record states");
  if (rc != CURLE_OK)
    throw download_error("cannot download " + url + ": " + (error[0] ? error : curl_easy_strerror(rc)));
  if (status >= 400) throw download_error("cannot download " + url + ": HTTP status " + std::to_string(status));
  return std::move(t.bytes);
}

std::string CatalogClient::get(const std::string& url, uint64_t max_bytes, const std::string& what) {
  const std::vector<uint8_t> b = download(url, max_bytes, what, 0, 0);
  return std::string(b.begin(), b.end());
}

cat::Catalog CatalogClient::catalog(bool* from_cache) {
  const std::string dir = catalog_dir();
  const cat::Limits limits;
  std::string server, records;
  try {
    server = get(cat::server_info_url(s_.server), 1 << 20, "the catalogue server's root document");
    records = get(cat::records_url(s_.server), limits.max_records_json_bytes, "the catalogue's records");
  } catch (const Error& e) {
    const std::vector<uint8_t> cached_server = read_bytes(dir + "/server.json"), cached = read_bytes(dir + "/records.json");
    if (cached.empty() || cached_server.empty())
      throw download_error(std::string(e.what()) + " (and no copy of this catalogue is cached in " + s_.cache_dir + ")");
    std::cerr << "tformer: warning: " << e.what() << "; using the catalogue as cached\n";
    base_url_ = cat::parse_attachments_base(std::string(cached_server.begin(), cached_server.end()));
    if (from_cache) *from_cache = true;
    return cat::Catalog(cat::parse_records(std::string(cached.begin(), cached.end()), limits), s_.options);
  }
  base_url_ = cat::parse_attachments_base(server);
  cat::Catalog catalog(cat::parse_records(records, limits), s_.options);  // checked before it is kept
  make_dirs(within_cache(dir, "create"));
  write_atomically(within_cache(dir + "/server.json", "write"), server.data(), server.size());
  write_atomically(within_cache(dir + "/records.json", "write"), records.data(), records.size());
  write_atomically(within_cache(dir + "/url", "write"), s_.server.data(), s_.server.size());
  if (from_cache) *from_cache = false;
  return catalog;
}

bool CatalogClient::cached(const cat::Plan& plan) {
  for (const auto& m : plan.steps)
    for (const auto& f : m.files) {
      const std::string path = model_dir(m) + "/" + f.name;
      struct stat st {};
      if (stat(path.c_str(), &st) != 0 || uint64_t(st.st_size) != f.decompressed_size) return false;
    }
  return true;
}

cat::Plan CatalogClient::plan(const std::string& source, const std::string& target) {
  // The records are read again each time, so that a newer release version or a changed file
  // replaces what is cached (fetch() checks each cached file against its record); offline, the
  // records cached by the last read say which files the cached pair has.
  return catalog().plan(source, target);
}

// Only folders this cache made are removed: real folders (not links) directly in the pair's folder
// that hold the mark fetch() leaves in each version folder, each checked to lie in the cache.
void CatalogClient::drop_other_versions(const cat::Model& m) {
  namespace fs = std::filesystem;
  const fs::path kept = model_dir(m);
  const fs::path pair = within_cache(kept.parent_path().string(), "clean up");
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(pair, ec)) {
    if (entry.path().filename() == kept.filename() || entry.is_symlink(ec) || !entry.is_directory(ec)) continue;
    if (!fs::is_regular_file(fs::symlink_status(entry.path() / kVersionMark, ec))) continue;
    fs::remove_all(within_cache(entry.path().string(), "remove"), ec);
  }
}

std::vector<CatalogClient::Step> CatalogClient::fetch(const cat::Plan& plan) {
  // The files to download, for one progress total.
  uint64_t total = 0, done = 0;
  for (const auto& m : plan.steps)
    for (const auto& f : m.files)
      if (!exists(model_dir(m) + "/" + f.name)) total += f.attachment.size;
  if (total > 0 && s_.progress && !isatty(2))  // on a terminal, download() shows the progress
    std::cerr << "tformer: downloading " << plan_name(plan) << " from " << s_.server << " (" << megabytes(total) << ")\n";
  std::vector<Step> steps;
  for (const auto& m : plan.steps) {
    Step step;
    step.model = m;
    const std::string dir = model_dir(m);
    for (const auto& f : m.files) {
      const std::string path = dir + "/" + f.name;
      std::vector<uint8_t> bytes = read_bytes(path);
      if (exists(path)) {
        try {
          cat::check_unpacked(f, bytes.data(), bytes.size());
          step.files.push_back({f.name, std::move(bytes)});
          continue;
        } catch (const Error& e) {
          std::cerr << "tformer: warning: the cached " << e.what() << "; downloading it again\n";
          std::remove(within_cache(path, "remove").c_str());
        }
      }
      if (base_url_.empty()) {
        const std::vector<uint8_t> server = read_bytes(catalog_dir() + "/server.json");
        base_url_ = cat::parse_attachments_base(std::string(server.begin(), server.end()));
      }
      const std::vector<uint8_t> download_bytes =
          download(base_url_ + f.attachment.location, f.attachment.size, plan_name(plan), done, total);
      done += f.attachment.size;
      std::vector<uint8_t> file = cat::unpack(f, download_bytes.data(), download_bytes.size());
      make_dirs(within_cache(dir, "create"));
      write_atomically(within_cache(path, "write"), file.data(), file.size());
      step.files.push_back({f.name, std::move(file)});
    }
    // The mark that tells drop_other_versions() this folder is the cache's own.
    const std::string mark = dir + "/" + kVersionMark;
    if (!exists(mark)) write_atomically(within_cache(mark, "write"), "", 0);
    // The pair's files of any other version (an older release, a channel asked for before) go.
    drop_other_versions(m);
    steps.push_back(std::move(step));
  }
  return steps;
}

}  // namespace tformer::cli
