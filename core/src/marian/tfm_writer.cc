#include "marian/tfm_writer.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace tformer::marian {
namespace {

constexpr uint64_t kAlign = 64;
uint64_t align(uint64_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

void put_le(uint8_t* p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) p[i] = uint8_t(v >> (8 * i));
}

// Python's repr() of a float, which json.dumps writes: the shortest digits that read back to the
// same double (correctly rounded, as printf rounds), in fixed notation unless the decimal exponent
// is below -4 or above 16. nlohmann's own shortest form may pick another last digit.
std::string python_float(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "Infinity" : "-Infinity";
  if (x == 0) return std::signbit(x) ? "-0.0" : "0.0";
  char buf[40];
  int p = 1;
  for (; p < 17; ++p) {
    std::snprintf(buf, sizeof buf, "%.*e", p - 1, x);
    if (std::strtod(buf, nullptr) == x) break;
  }
  std::snprintf(buf, sizeof buf, "%.*e", p - 1, x);
  std::string s = buf;
  const bool negative = s[0] == '-';
  if (negative) s = s.substr(1);
  const size_t e = s.find('e');
  const int exponent = std::atoi(s.c_str() + e + 1);
  std::string digits;
  for (size_t i = 0; i < e; ++i) {
    if (s[i] != '.') digits += s[i];
  }
  const int decpt = exponent + 1;  // value = 0.DIGITS x 10^decpt
  std::string out;
  if (decpt <= -4 || decpt > 16) {
    out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char ex[16];
    std::snprintf(ex, sizeof ex, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    out += ex;
  } else if (decpt <= 0) {
    out = "0." + std::string(size_t(-decpt), '0') + digits;
  } else if (size_t(decpt) >= digits.size()) {
    out = digits + std::string(size_t(decpt) - digits.size(), '0') + ".0";
  } else {
    out = digits.substr(0, size_t(decpt)) + "." + digits.substr(size_t(decpt));
  }
  return negative ? "-" + out : out;
}

// json.dumps(separators=(",", ":")) of the header: compact, ASCII escapes, Python's floats.
void dump_python(const nlohmann::ordered_json& j, std::string& out) {
  switch (j.type()) {
    case nlohmann::ordered_json::value_t::object: {
      out += '{';
      bool first = true;
      for (const auto& [k, v] : j.items()) {
        if (!first) out += ',';
        first = false;
        out += nlohmann::ordered_json(k).dump(-1, ' ', true);
        out += ':';
        dump_python(v, out);
      }
      out += '}';
      break;
    }
    case nlohmann::ordered_json::value_t::array: {
      out += '[';
      for (size_t i = 0; i < j.size(); ++i) {
        if (i) out += ',';
        dump_python(j[i], out);
      }
      out += ']';
      break;
    }
    case nlohmann::ordered_json::value_t::number_float:
      out += python_float(j.get<double>());
      break;
    default:
      out += j.dump(-1, ' ', true);
  }
}

}  // namespace

std::vector<uint8_t> write_tfm(const nlohmann::ordered_json& config, const nlohmann::ordered_json& tokenizer,
                               const std::vector<std::pair<std::string, TfmTensor>>& tensors,
                               const nlohmann::ordered_json& metadata) {
  nlohmann::ordered_json entries = nlohmann::ordered_json::array();
  std::vector<uint64_t> offsets;
  uint64_t offset = 0, data_end = 0;
  for (const auto& [name, t] : tensors) {
    nlohmann::ordered_json e;
    e["name"] = name;
    e["dtype"] = t.dtype;
    e["shape"] = t.shape;
    e["offset"] = offset;
    e["nbytes"] = t.bytes.size();
    if (!t.scales.empty()) e["scales"] = t.scales;
    entries.push_back(std::move(e));
    offsets.push_back(offset);
    data_end = offset + t.bytes.size();
    offset = align(data_end);
  }
  nlohmann::ordered_json header;
  header["format"] = "tformer";
  header["version"] = 1;
  header["config"] = config;
  header["tokenizer"] = tokenizer;
  header["tensors"] = std::move(entries);
  header["metadata"] = metadata;
  // ensure_ascii: Python's json.dumps escapes every non-ASCII character as \uXXXX.
  std::string h;
  dump_python(header, h);
  const uint64_t data_start = align(24 + h.size());
  std::vector<uint8_t> out(data_start + data_end, 0);
  std::memcpy(out.data(), "TFMODEL", 8);  // the magic, NUL included
  put_le(out.data() + 8, 1, 4);           // format version
  put_le(out.data() + 12, 0, 4);          // flags
  put_le(out.data() + 16, h.size(), 8);   // header length
  std::memcpy(out.data() + 24, h.data(), h.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto& b = tensors[i].second.bytes;
    if (!b.empty()) std::memcpy(out.data() + data_start + offsets[i], b.data(), b.size());
  }
  return out;
}

}  // namespace tformer::marian
