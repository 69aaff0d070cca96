#include "marian/npy.h"

#include <cctype>
#include <cstring>

#include "tformer/error.h"
#include "util/printable.h"

namespace tformer::marian {
namespace {

// The header's Python literal, read with just enough grammar for what numpy writes: a dict of
// string keys to a string, a bool or a tuple of integers.
class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& what) : s_(text), what_(what) {}

  void parse(std::string& descr, bool& fortran, std::vector<int64_t>& shape) {
    bool have_descr = false, have_fortran = false, have_shape = false;
    expect('{');
    while (true) {
      skip();
      if (peek() == '}') { ++i_; break; }
      const std::string key = string_literal();
      expect(':');
      skip();
      if (key == "descr") {
        descr = string_literal();
        have_descr = true;
      } else if (key == "fortran_order") {
        if (word("True")) fortran = true;
        else if (word("False")) fortran = false;
        else fail("fortran_order is not True or False");
        have_fortran = true;
      } else if (key == "shape") {
        shape = tuple();
        have_shape = true;
      } else {
        fail("unknown key '" + printable(key) + "'");
      }
      skip();
      if (peek() == ',') { ++i_; continue; }
      expect('}');
      break;
    }
    skip();
    if (i_ != s_.size()) fail("text after the header dictionary");
    if (!have_descr || !have_fortran || !have_shape) fail("the header lacks descr, fortran_order or shape");
  }

 private:
  [[noreturn]] void fail(const std::string& msg) const { throw Error(what_ + ": invalid .npy header: " + msg); }
  void skip() { while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t')) ++i_; }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void expect(char c) {
    skip();
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++i_;
  }
  bool word(const char* w) {
    const size_t n = std::strlen(w);
    if (s_.compare(i_, n, w) != 0) return false;
    i_ += n;
    return true;
  }
  std::string string_literal() {
    skip();
    const char q = peek();
    if (q != '\'' && q != '"') fail("expected a quoted string");
    const size_t end = s_.find(q, i_ + 1);
    if (end == std::string::npos) fail("unterminated string");
    std::string v = s_.substr(i_ + 1, end - i_ - 1);
    i_ = end + 1;
    return v;
  }
  std::vector<int64_t> tuple() {
    std::vector<int64_t> dims;
    expect('(');
    while (true) {
      skip();
      if (peek() == ')') { ++i_; break; }
      if (!std::isdigit(static_cast<unsigned char>(peek()))) fail("shape holds something other than integers");
      int64_t v = 0;
      while (std::isdigit(static_cast<unsigned char>(peek()))) {
        v = v * 10 + (s_[i_++] - '0');
        if (v > (int64_t(1) << 40)) fail("a dimension of the shape is implausibly large");
      }
      dims.push_back(v);
      skip();
      if (peek() == ',') { ++i_; continue; }
      expect(')');
      break;
    }
    if (dims.size() > 8) fail("more than 8 dimensions");
    return dims;
  }

  const std::string& s_;
  const std::string& what_;
  size_t i_ = 0;
};

}  // namespace

void parse_npy(const uint8_t* data, size_t size, const std::string& what, MarianItem& item) {
  static const uint8_t kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (size < 10 || std::memcmp(data, kMagic, 6) != 0) throw Error(what + ": not a .npy array (no \\x93NUMPY signature)");
  const int major = data[6];
  size_t header_len, pos;
  if (major == 1) {
    header_len = size_t(data[8]) | size_t(data[9]) << 8;
    pos = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12) throw Error(what + ": truncated .npy header");
    header_len = size_t(data[8]) | size_t(data[9]) << 8 | size_t(data[10]) << 16 | size_t(data[11]) << 24;
    pos = 12;
  } else {
    throw Error(what + ": .npy format version " + std::to_string(major) + " (this reader knows 1 to 3)");
  }
  if (header_len > size - pos) throw Error(what + ": truncated .npy header");
  const std::string header(reinterpret_cast<const char*>(data + pos), header_len);
  pos += header_len;
  std::string descr;
  bool fortran = false;
  std::vector<int64_t> shape;
  HeaderParser(header, what).parse(descr, fortran, shape);
  // Marian's arrays are little-endian ints and floats ('<f4'; '|i1' for special:model.yml).
  static const struct { const char* code; const char* type; } kTypes[] = {
      {"f2", "float16"}, {"f4", "float32"}, {"f8", "float64"}, {"i1", "int8"}, {"i2", "int16"},
      {"i4", "int32"}, {"i8", "int64"}, {"u1", "uint8"}, {"u2", "uint16"}, {"u4", "uint32"}, {"u8", "uint64"}};
  const char* type = nullptr;
  if (descr.size() == 3 && (descr[0] == '<' || descr[0] == '|' || (descr[0] == '>' && descr[2] == '1'))) {
    for (const auto& t : kTypes) {
      if (descr.compare(1, 2, t.code) == 0) type = t.type;
    }
  }
  if (!type) throw Error(what + ": array of dtype '" + printable(descr) + "' (Marian models hold little-endian ints and floats)");
  if (fortran && shape.size() > 1) throw Error(what + ": Fortran-ordered arrays are not supported");
  item.type = type;
  item.shape = shape;
  const uint64_t need = needed_bytes(item.type, item.shape);
  if (need > size - pos) {
    throw Error(what + ": truncated array: a " + item.type + " array of shape " + item.shape_string() + " " +
                needs_text(need) + ", the entry holds " + std::to_string(size - pos) + " bytes");
  }
  item.data = data + pos;
  item.size = need;
}

}  // namespace tformer::marian
