// The CLI's side of the model catalogue: fetching with libcurl and a cache on disk. The rules
// (which records, which files, the checks and the zstd unpacking) are the engine's
// (tformer/catalog.h); this only moves bytes and keeps verified files.
//
// Cache: DIR/<catalogue>/records.json and server.json (the last documents read, so that a cached
// pair works offline), and DIR/<catalogue>/<source>-<target>/<version>-<architecture>/<name>, each
// file as used (decompressed), written only after its checks passed, under a temporary name
// renamed into place: nothing broken stays there. One version of a pair is kept: the one last used.
// Nothing is written or removed outside DIR: each path is resolved and checked first, and only
// version folders that hold the cache's mark (kVersionMark) are ever removed.
#pragma once

#include <string>
#include <vector>

#include "tformer/catalog.h"
#include "tformer/marian.h"

namespace tformer::cli {

// The empty file in each version folder the cache made (the package's Node cache writes it too).
inline constexpr const char* kVersionMark = ".tformer-version";

struct CatalogSettings {
  std::string server = tformer::catalog::kFirefoxServer;
  std::string cache_dir;  // empty: $XDG_CACHE_HOME/tformer or ~/.cache/tformer
  tformer::catalog::Options options;
  bool progress = true;   // progress on stderr
};

// The default cache folder: $XDG_CACHE_HOME/tformer, else $HOME/.cache/tformer.
std::string default_cache_dir();

class CatalogClient {
 public:
  explicit CatalogClient(CatalogSettings settings);
  ~CatalogClient();

  // The catalogue as the server has it now; when the server cannot be reached, the copy cached by
  // the last successful read (with a warning on stderr), else a kDownload error.
  tformer::catalog::Catalog catalog(bool* from_cache = nullptr);
  // Whether every file of the plan is in the cache and passes its checks.
  bool cached(const tformer::catalog::Plan& plan);
  // The plan of a pair from the records as the server has them now (offline: as cached), and each
  // step's files: those in the cache that pass their record's checks, the others downloaded (with
  // progress), checked and cached. A pair's files of other versions leave the cache.
  struct Step {
    tformer::catalog::Model model;
    std::vector<tformer::MarianFile> files;
  };
  tformer::catalog::Plan plan(const std::string& source, const std::string& target);
  std::vector<Step> fetch(const tformer::catalog::Plan& plan);

 private:
  std::string catalog_dir() const;
  std::string model_dir(const tformer::catalog::Model& m) const;
  void drop_other_versions(const tformer::catalog::Model& m);
  std::string within_cache(const std::string& path, const char* action) const;
  std::string get(const std::string& url, uint64_t max_bytes, const std::string& what);
  std::vector<uint8_t> download(const std::string& url, uint64_t size, const std::string& what, uint64_t done,
                                uint64_t total);
  CatalogSettings s_;
  std::string base_url_;  // attachments base, once read
};

}  // namespace tformer::cli
