// Firefox's catalogue documents (Kinto JSON) read into records, with every field the rules and the
// downloads use checked before anyone relies on it.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tformer/catalog.h"

namespace tformer::catalog {
namespace {

Error catalog_error(const std::string& detail) {
  return Error(ErrorCode::kInvalidCatalog, Phase::kCatalog, detail);
}

nlohmann::json parse_json(const std::string& text, const std::string& what) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw catalog_error(what + " is not JSON: " + e.what());
  }
}

bool is_sha256_hex(const std::string& s) {
  if (s.size() != 64) return false;
  for (char c : s)
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Record fields that become parts of a cache path (<pair>/<version>-<architecture>/<name>) or of a
// download URL are held to strict patterns: a record that does not match is refused, so that no
// field can name a folder above the cache ('..', '/', '\\', an absolute path, NUL, '%2e%2e').
bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// A file name that stays a file name in a cache folder: letters, digits, '.', '-', '_', not
// starting with a dot.
bool is_plain_name(const std::string& s) {
  if (s.empty() || s.size() > 200 || s[0] == '.') return false;
  for (char c : s)
    if (!is_alnum(c) && c != '.' && c != '-' && c != '_') return false;
  return true;
}

// Runs of letters and digits joined by single separators from `separators`: "1.0", "2.0a1",
// "base-memory", "zh-Hant". Never empty, never a separator at either end, never "..".
bool is_joined_runs(const std::string& s, size_t max_size, const char* separators) {
  if (s.empty() || s.size() > max_size) return false;
  bool after_separator = true;
  for (char c : s) {
    if (is_alnum(c)) {
      after_separator = false;
    } else if (std::strchr(separators, c) != nullptr && c != '\0') {
      if (after_separator) return false;
      after_separator = true;
    } else {
      return false;
    }
  }
  return !after_separator;
}

// A language tag as BCP 47 writes it: a primary subtag of letters, then subtags joined by '-'.
bool is_language(const std::string& s) {
  if (!is_joined_runs(s, 35, "-") || !std::isalpha(static_cast<unsigned char>(s[0]))) return false;
  const size_t first = std::min(s.find('-'), s.size());
  return first >= 2 && first <= 8;
}

bool is_version(const std::string& s) { return is_joined_runs(s, 64, ".-+"); }           // "1.0", "2.0a1"
bool is_architecture(const std::string& s) { return is_joined_runs(s, 64, "-"); }        // "tiny", "base-memory"

// A path under the attachments' base URL: relative, without '..', backslashes, queries or control
// characters, so that base + location stays on the server's attachment tree.
bool is_safe_location(const std::string& s) {
  if (s.empty() || s.size() > 1000 || s[0] == '/') return false;
  for (char c : s)
    if (static_cast<unsigned char>(c) <= 0x20 || c == '\\' || c == '?' || c == '#' || c == '%' || c == ':' ||
        static_cast<unsigned char>(c) >= 0x7f)
      return false;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t end = std::min(s.find('/', start), s.size());
    const std::string part = s.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = end + 1;
  }
  return true;
}

// A catalogue's text as an error message may show it: control characters and non-ASCII bytes
// escaped, and cut after 60 bytes, so that a record cannot write to the terminal or flood it.
std::string shown(const std::string& s) {
  std::string out = "'";
  for (size_t i = 0; i < s.size(); ++i) {
    if (i == 60) {
      out += "...(" + std::to_string(s.size()) + " bytes)";
      break;
    }
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c >= 0x7f || c == '\'' || c == '\\') {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else {
      out += char(c);
    }
  }
  return out + "'";
}

}  // namespace

std::vector<Record> parse_records(const std::string& json, const Limits& limits) {
  if (json.size() > limits.max_records_json_bytes)
    throw catalog_error("the catalogue's records are " + std::to_string(json.size()) + " bytes, more than the limit of " +
                        std::to_string(limits.max_records_json_bytes));
  const nlohmann::json doc = parse_json(json, "the catalogue's records");
  if (!doc.is_object() || !doc.contains("data") || !doc["data"].is_array())
    throw catalog_error("the catalogue's records are not a Kinto document {\"data\": [...]}");
  const auto& data = doc["data"];
  if (data.size() > limits.max_records)
    throw catalog_error("the catalogue has " + std::to_string(data.size()) + " records, more than the limit of " +
                        std::to_string(limits.max_records));
  std::vector<Record> records;
  records.reserve(data.size());
  for (size_t i = 0; i < data.size(); ++i) {
    const auto& r = data[i];
    const std::string where = "catalogue record " + std::to_string(i + 1) +
                              (r.is_object() && r.contains("name") && r["name"].is_string()
                                   ? " (" + shown(r["name"].get<std::string>()) + ")" : std::string());
    if (!r.is_object()) throw catalog_error(where + " is not an object");
    auto text = [&](const nlohmann::json& obj, const char* key, bool required, const std::string& in) -> std::string {
      if (!obj.contains(key) || obj[key].is_null()) {
        if (required) throw catalog_error(where + " has no " + in + key);
        return "";
      }
      if (!obj[key].is_string()) throw catalog_error(where + ": " + in + key + " is not a string");
      return obj[key].get<std::string>();
    };
    auto size = [&](const nlohmann::json& obj, const char* key, const std::string& in) -> uint64_t {
      if (!obj.contains(key) || !obj[key].is_number_integer() || obj[key].get<int64_t>() < 0)
        throw catalog_error(where + ": " + in + key + " is not a byte count");
      const uint64_t n = obj[key].get<uint64_t>();
      if (n > limits.max_file_bytes)
        throw catalog_error(where + ": " + in + key + " is " + std::to_string(n) + " bytes, more than the limit of " +
                            std::to_string(limits.max_file_bytes));
      return n;
    };
    Record rec;
    rec.id = text(r, "id", false, "");
    rec.name = text(r, "name", true, "");
    rec.source = text(r, "sourceLanguage", true, "");
    rec.target = text(r, "targetLanguage", true, "");
    rec.version = text(r, "version", true, "");
    rec.file_type = text(r, "fileType", true, "");
    rec.architecture = text(r, "architecture", false, "");
    rec.variant = text(r, "variant", false, "");
    rec.filter_expression = text(r, "filter_expression", false, "");
    // Each field that reaches a cache path, checked by its own pattern and named when refused.
    if (!is_language(rec.source))
      throw catalog_error(where + ": sourceLanguage " + shown(rec.source) + " is not a language tag");
    if (!is_language(rec.target))
      throw catalog_error(where + ": targetLanguage " + shown(rec.target) + " is not a language tag");
    if (!is_plain_name(rec.name))
      throw catalog_error(where + ": name " + shown(rec.name) +
                          " is not a plain file name (letters, digits, '.', '-', '_'; not starting with '.')");
    if (!is_version(rec.version))
      throw catalog_error(where + ": version " + shown(rec.version) +
                          " is not a version (letters and digits joined by '.', '-' or '+')");
    if (!rec.architecture.empty() && !is_architecture(rec.architecture))
      throw catalog_error(where + ": architecture " + shown(rec.architecture) +
                          " is not an architecture name (letters and digits joined by '-')");
    if (!r.contains("attachment") || !r["attachment"].is_object()) throw catalog_error(where + " has no attachment");
    const auto& a = r["attachment"];
    rec.attachment.hash = lower(text(a, "hash", true, "attachment."));
    rec.attachment.size = size(a, "size", "attachment.");
    rec.attachment.filename = text(a, "filename", false, "attachment.");
    rec.attachment.location = text(a, "location", true, "attachment.");
    rec.attachment.mimetype = text(a, "mimetype", false, "attachment.");
    if (!is_sha256_hex(rec.attachment.hash)) throw catalog_error(where + ": attachment.hash is not a sha256 (64 hex digits)");
    if (!is_safe_location(rec.attachment.location))
      throw catalog_error(where + ": attachment.location " + shown(rec.attachment.location) +
                          " is not a relative path on the server");
    // Records without decompressedHash (uncompressed attachments) are used as downloaded.
    if (r.contains("decompressedHash") && !r["decompressedHash"].is_null()) {
      rec.decompressed_hash = lower(text(r, "decompressedHash", true, ""));
      rec.decompressed_size = size(r, "decompressedSize", "");
    } else if (rec.compressed()) {
      throw catalog_error(where + " is zstd but has no decompressedHash");
    } else {
      rec.decompressed_hash = rec.attachment.hash;
      rec.decompressed_size = rec.attachment.size;
    }
    if (!is_sha256_hex(rec.decompressed_hash)) throw catalog_error(where + ": decompressedHash is not a sha256 (64 hex digits)");
    records.push_back(std::move(rec));
  }
  return records;
}

std::string parse_attachments_base(const std::string& json) {
  const nlohmann::json doc = parse_json(json, "the catalogue server's root document");
  const nlohmann::json::json_pointer at("/capabilities/attachments/base_url");
  if (!doc.is_object() || !doc.contains(at) || !doc[at].is_string())
    throw catalog_error("the catalogue server's root document has no capabilities.attachments.base_url");
  std::string base = doc[at].get<std::string>();
  if (base.rfind("http://", 0) != 0 && base.rfind("https://", 0) != 0)
    throw catalog_error("the catalogue's attachments base URL '" + base + "' is not an http(s) URL");
  if (base.back() != '/') base += '/';
  return base;
}

static std::string without_trailing_slash(std::string s) {
  while (!s.empty() && s.back() == '/') s.pop_back();
  return s;
}

std::string records_url(const std::string& server) {
  return without_trailing_slash(server) + "/buckets/main/collections/" + kCollection + "/records";
}

std::string server_info_url(const std::string& server) { return without_trailing_slash(server) + "/"; }

}  // namespace tformer::catalog
