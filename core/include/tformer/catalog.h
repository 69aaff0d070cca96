// Firefox's model catalogue: the rules that turn its records into the files of a language pair.
//
// Firefox Translations publishes its models in a Remote Settings collection (Kinto JSON): GET
// {server}/buckets/main/collections/translations-models-v2/records gives {"data": [record, ...]},
// and GET {server}/ gives capabilities.attachments.base_url, to which a record's
// attachment.location is appended. The rules here follow Firefox's own code
// (toolkit/components/translations/actors/TranslationsParent.sys.mjs): a record's filter_expression
// decides the channels that see it; per file name and pair the newest version wins; a pair then
// keeps the files of its model's version; a translator needs model, vocab (or srcvocab and
// trgvocab) and lex where present, never qualityModel; a pair without a direct model goes
// through English. Fetching is the caller's (libcurl in the CLI, fetch in the npm package); each
// fetched file goes through unpack() before use.
//
//   auto records = tformer::catalog::parse_records(records_json);
//   tformer::catalog::Catalog catalog(records, {});          // release channel, any architecture
//   tformer::catalog::Plan plan = catalog.plan("fr", "de");  // fr->en, en->de
//   for (const auto& step : plan.steps) for (const auto& file : step.files) {
//     bytes = fetch(base_url + file.attachment.location);
//     MarianFile{file.name, tformer::catalog::unpack(file, bytes)};  // checked, decompressed
//   }
//
// Errors are tformer::Error: kInvalidCatalog (phase kCatalog) for records not in Firefox's format
// or a pair the catalogue lacks, kDownload (phase kDownload) for a file that is not what its
// record says.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tformer/error.h"

namespace tformer::catalog {

// The collection and the server Firefox reads.
constexpr const char* kFirefoxServer = "https://firefox.settings.services.mozilla.com/v1";
constexpr const char* kCollection = "translations-models-v2";
// Pairs without a direct model are translated through this language, as Firefox does.
constexpr const char* kPivotLanguage = "en";

// Bounds on what a catalogue may ask for: a record over them is refused, never allocated.
struct Limits {
  uint64_t max_file_bytes = uint64_t(1) << 30;       // a file, downloaded or decompressed (1 GiB)
  size_t max_records = 100000;
  size_t max_records_json_bytes = size_t(64) << 20;  // the records document
};

struct Attachment {
  std::string hash;      // sha256 of the download, lowercase hex
  uint64_t size = 0;     // bytes of the download
  std::string filename;  // the download's name (e.g. model.enfr.intgemm.alphas.bin.zst)
  std::string location;  // path under the server's attachments base URL
  std::string mimetype;  // application/zstd for compressed files
};

struct Record {
  std::string id, name;             // name: the file as used (e.g. model.enfr.intgemm.alphas.bin)
  std::string source, target;       // sourceLanguage, targetLanguage
  std::string architecture;         // tiny, base, base-memory (may be empty in older records)
  std::string version;              // e.g. "1.0", "2.0a1"; compared as Firefox compares versions
  std::string file_type;            // model, lex, vocab, srcvocab, trgvocab, qualityModel
  std::string variant;              // a second model of the same pair, chosen by name; usually empty
  std::string filter_expression;    // empty: every channel
  std::string decompressed_hash;    // sha256 of the file as used, lowercase hex
  uint64_t decompressed_size = 0;
  Attachment attachment;
  bool compressed() const { return attachment.mimetype == "application/zstd"; }
};

// The records of a Kinto document {"data": [...]}. Records of a file type the engine does not know
// are kept (and never chosen); records missing a field the rules need, with a hash that is not
// 64 hex digits, a size over the limits, or a name or location that could leave its folder are
// refused with the record named.
std::vector<Record> parse_records(const std::string& json, const Limits& limits = {});
// capabilities.attachments.base_url of the server's root document (GET {server}/), ending in '/'.
std::string parse_attachments_base(const std::string& json);
// The records document's and the server root's URLs of a server URL ("https://host/v1").
std::string records_url(const std::string& server);
std::string server_info_url(const std::string& server);

// The channel whose records a user sees: release unless asked otherwise.
enum class Channel { kRelease, kBeta, kNightly };
Channel channel_from_name(const std::string& name);  // "release", "beta", "nightly"; else kInvalidCatalog
const char* channel_name(Channel channel);

// Whether a record with this filter_expression is seen on the channel by a desktop application.
// The expressions are Remote Settings' JEXL; this reads the subset Firefox's records use (string
// comparisons of env.channel and env.appinfo.OS with ==, !=, in [...], joined by &&, ||, ! and
// parentheses). An expression it cannot read hides the record, as Remote Settings does.
bool visible(const std::string& filter_expression, Channel channel);

// Firefox's version order (Services.vc.compare): "1.0a1" < "1.0b1" < "1.0" < "1.1" < "2.0a1".
int compare_versions(const std::string& a, const std::string& b);

struct Options {
  Channel channel = Channel::kRelease;
  std::string architecture;  // only models of this architecture (empty: any; the newest wins)
};

// One model of the catalogue: a direct pair with the files a translator needs.
struct Model {
  std::string source, target, architecture, version;
  std::vector<Record> files;  // model, then vocab or srcvocab + trgvocab, then lex if present
  uint64_t download_bytes() const;
  uint64_t decompressed_bytes() const;
};

// How a pair is translated: one model, or two through English.
struct Plan {
  std::string source, target;
  std::vector<Model> steps;  // 1: direct; 2: source -> en, en -> target
  bool pivot() const { return steps.size() == 2; }
  uint64_t download_bytes() const;
  std::string architecture() const;  // of its models, "tiny" or "tiny+base" when they differ
};

class Catalog {
 public:
  explicit Catalog(const std::vector<Record>& records, const Options& options = {});
  // The direct models, sorted by source then target.
  const std::vector<Model>& models() const { return models_; }
  // Every pair the catalogue translates, direct or through English, sorted by source then target.
  std::vector<Plan> pairs() const;
  // The pair's plan: the direct model, else the two through English. The languages are language
  // tags (tformer/language_tags.h), matched to the catalogue's by best fit as the web's Translator
  // API does ("DE" and "de-AT" are the catalogue's "de"); the plan names the catalogue's tags.
  // Throws kInvalidCatalog naming what is missing and the nearest pairs the catalogue has, or
  // kInvalidArgument for a string that is not a language tag.
  Plan plan(const std::string& source, const std::string& target) const;

 private:
  const Model* find(const std::string& source, const std::string& target) const;
  Plan plan_of(const std::string& source, const std::string& target) const;  // the catalogue's own tags
  std::vector<Model> models_;
  std::vector<std::string> refused_;  // "fr->en (it has no vocab ... file)": pairs whose files make no translator
};

// sha256 of bytes, lowercase hex.
std::string sha256_hex(const uint8_t* data, size_t size);

// A downloaded file made ready for use: checks its size and sha256 against attachment.size and
// attachment.hash, decompresses it when it is zstd (refusing output beyond decompressedSize while
// decompressing), then checks decompressedSize and decompressedHash. Throws kDownload naming the
// file and what differs ("truncated: 1200 of 4096 bytes").
std::vector<uint8_t> unpack(const Record& file, const uint8_t* data, size_t size);
// Checks a file as used (a cached copy) against decompressedSize and decompressedHash.
void check_unpacked(const Record& file, const uint8_t* data, size_t size);

// zstd frames to at most max_output bytes; throws kDownload naming `what` when the data is not zstd,
// is truncated or decompresses to more.
std::vector<uint8_t> zstd_decompress(const uint8_t* data, size_t size, uint64_t max_output, const std::string& what);

}  // namespace tformer::catalog
