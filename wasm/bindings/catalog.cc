// Module.Catalog: Firefox's model catalogue read by the engine's rules (tformer/catalog.h), for
// the npm package, which fetches (with progress) and caches; what to fetch and whether a fetched
// file may be used is decided here.
//   const c = new Module.Catalog(recordsJsonText, {channel: 'release', architecture: ''});
//   c.pairs()          -> [{source, target, pivot, architecture, downloadBytes}]
//   c.plan('fr', 'de') -> {source, target, pivot, architecture, downloadBytes,
//                          steps: [{source, target, architecture, version,
//                                   files: [{id, name, fileType, location, size, hash,
//                                            decompressedSize, decompressedHash}]}]}
//   c.unpack(id, Uint8Array) -> Uint8Array   the file as used: size, sha256, zstd, checked
//   c.check(id, Uint8Array)                  a cached file as used: size and decompressedHash
//   Module.catalogAttachmentsBase(serverRootJsonText) -> 'https://.../'
//   Module.catalogUrls(serverUrl) -> {records, server}
//   Module.catalogFirefoxServer -> Firefox's server URL (a constant)
// Errors: code 'invalid_catalog' (phase 'catalog') or 'download' (phase 'download').
#include <emscripten/bind.h>

#include <string>
#include <vector>

#include "error.h"
#include "js_values.h"
#include "tformer/catalog.h"

namespace tformer::wasm {
namespace {

namespace cat = tformer::catalog;

Error invalid_argument(const std::string& detail) { return Error(ErrorCode::kInvalidArgument, Phase::kCatalog, detail); }

val plan_to_js(const cat::Plan& p, bool with_files) {
  val steps = val::array();
  for (const auto& m : p.steps) {
    val files = val::array();
    for (const auto& f : m.files)
      files.call<void>("push", object({{"id", val(f.id)},
                                       {"name", val(f.name)},
                                       {"fileType", val(f.file_type)},
                                       {"version", val(f.version)},
                                       {"location", val(f.attachment.location)},
                                       {"size", val(double(f.attachment.size))},
                                       {"hash", val(f.attachment.hash)},
                                       {"decompressedSize", val(double(f.decompressed_size))},
                                       {"decompressedHash", val(f.decompressed_hash)}}));
    steps.call<void>("push", object({{"source", val(m.source)},
                                     {"target", val(m.target)},
                                     {"architecture", val(m.architecture)},
                                     {"version", val(m.version)},
                                     {"downloadBytes", val(double(m.download_bytes()))},
                                     {"files", when(with_files, files)}}));
  }
  return object({{"source", val(p.source)},
                 {"target", val(p.target)},
                 {"pivot", val(p.pivot())},
                 {"architecture", val(p.architecture())},
                 {"downloadBytes", val(double(p.download_bytes()))},
                 {"steps", steps}});
}

std::vector<uint8_t> bytes_of(const val& bytes, const char* call) {
  if (!bytes.instanceof(val::global("Uint8Array"))) throw invalid_argument(std::string(call) + " takes the file as a Uint8Array");
  std::vector<uint8_t> b(bytes["length"].as<size_t>());
  val(emscripten::typed_memory_view(b.size(), b.data())).call<void>("set", bytes);
  return b;
}

class JsCatalog {
 public:
  static JsCatalog* create(const std::string& records_json, const val& options) {
    return or_js_error("new Catalog", [&] {
      cat::Options o;
      if (!options.isUndefined() && !options.isNull()) {
        if (!is_object(options)) throw invalid_argument("the options must be an object {channel, architecture}");
        if (!options["channel"].isUndefined()) {
          if (type_of(options["channel"]) != "string") throw invalid_argument("channel must be a string");
          o.channel = cat::channel_from_name(options["channel"].as<std::string>());
        }
        if (!options["architecture"].isUndefined() && !options["architecture"].isNull()) {
          if (type_of(options["architecture"]) != "string") throw invalid_argument("architecture must be a string");
          o.architecture = options["architecture"].as<std::string>();
        }
      }
      return new JsCatalog(cat::parse_records(records_json), o);
    });
  }

  val pairs() const {
    return or_js_error("pairs", [&] {
      return array_of(catalog_.pairs(), [](const cat::Plan& p) { return plan_to_js(p, false); });
    });
  }

  val plan(const std::string& source, const std::string& target) const {
    return or_js_error("plan", [&] { return plan_to_js(catalog_.plan(source, target), true); });
  }

  val unpack(const std::string& id, const val& bytes) const {
    return or_js_error("unpack", [&] {
      const cat::Record& r = record(id);
      std::vector<uint8_t> out;
      {
        const std::vector<uint8_t> in = bytes_of(bytes, "unpack");
        out = cat::unpack(r, in.data(), in.size());
      }
      return val::global("Uint8Array").new_(val(emscripten::typed_memory_view(out.size(), out.data())));
    });
  }

  void check(const std::string& id, const val& bytes) const {
    or_js_error("check", [&] {
      const std::vector<uint8_t> in = bytes_of(bytes, "check");
      cat::check_unpacked(record(id), in.data(), in.size());
      return 0;
    });
  }

 private:
  JsCatalog(std::vector<cat::Record> records, const cat::Options& o) : records_(std::move(records)), catalog_(records_, o) {}

  const cat::Record& record(const std::string& id) const {
    for (const auto& r : records_)
      if (r.id == id) return r;
    throw invalid_argument("the catalogue has no record '" + id + "'");
  }

  std::vector<cat::Record> records_;
  cat::Catalog catalog_;
};

std::string attachments_base(const std::string& json) {
  return or_js_error("catalogAttachmentsBase", [&] { return cat::parse_attachments_base(json); });
}

val urls(const std::string& server) {
  return object({{"records", val(cat::records_url(server))}, {"server", val(cat::server_info_url(server))}});
}

std::string firefox_server() { return cat::kFirefoxServer; }

}  // namespace

EMSCRIPTEN_BINDINGS(catalog) {
  emscripten::class_<JsCatalog>("Catalog")
      .constructor(&JsCatalog::create, emscripten::allow_raw_pointers())
      .function("pairs", &JsCatalog::pairs)
      .function("plan", &JsCatalog::plan)
      .function("unpack", &JsCatalog::unpack)
      .function("check", &JsCatalog::check);
  emscripten::function("catalogAttachmentsBase", &attachments_base);
  emscripten::function("catalogUrls", &urls);
  emscripten::function("catalogFirefoxServer", &firefox_server);
}

}  // namespace tformer::wasm
