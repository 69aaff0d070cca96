// Firefox's version order (xpcom/base/nsVersionComparator.cpp, Services.vc.compare), which its
// Translations code uses to pick a record's newest version: versions are dot-separated parts, each
// part read as <number a><string b><number c><extra d>; a missing part is "0"; a part without a
// string b is newer than one with it ("1.0" > "1.0b1" > "1.0a2" > "1.0a1"); "+" after a number
// means the next number's pre-release.
#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>

#include "tformer/catalog.h"

namespace tformer::catalog {
namespace {

struct VersionPart {
  long a = 0;
  bool has_b = false;
  std::string b;
  long c = 0;
  bool has_d = false;
  std::string d;
};

// Reads the part at `at` and moves `at` past it (and its dot); at == npos when no part is left.
VersionPart read_part(const std::string& version, size_t& at) {
  VersionPart p;
  if (at == std::string::npos || at >= version.size()) {
    at = std::string::npos;
    return p;
  }
  const size_t dot = version.find('.', at);
  const std::string part = version.substr(at, dot == std::string::npos ? std::string::npos : dot - at);
  at = dot == std::string::npos || dot + 1 >= version.size() ? std::string::npos : dot + 1;
  const char* s = part.c_str();
  char* rest = nullptr;
  if (part == "*") {
    p.a = LONG_MAX;
    return p;
  }
  p.a = std::strtol(s, &rest, 10);
  if (*rest == '\0') return p;
  if (*rest == '+') {
    ++p.a;
    p.has_b = true;
    p.b = "pre";
    return p;
  }
  p.has_b = true;
  const char* number = std::strpbrk(rest, "0123456789+-");
  if (!number) {
    p.b = rest;
    return p;
  }
  p.b.assign(rest, size_t(number - rest));
  char* extra = nullptr;
  p.c = std::strtol(number, &extra, 10);
  if (*extra != '\0') {
    p.has_d = true;
    p.d = extra;
  }
  return p;
}

// A missing string sorts after every string.
int compare_strings(bool has1, const std::string& s1, bool has2, const std::string& s2) {
  if (!has1) return has2 ? 1 : 0;
  if (!has2) return -1;
  const int r = s1.compare(s2);
  return r < 0 ? -1 : r > 0 ? 1 : 0;
}

int compare_parts(const VersionPart& x, const VersionPart& y) {
  if (x.a != y.a) return x.a < y.a ? -1 : 1;
  if (int r = compare_strings(x.has_b, x.b, y.has_b, y.b)) return r;
  if (x.c != y.c) return x.c < y.c ? -1 : 1;
  return compare_strings(x.has_d, x.d, y.has_d, y.d);
}

}  // namespace

int compare_versions(const std::string& a, const std::string& b) {
  size_t at_a = 0, at_b = 0;
  while (at_a != std::string::npos || at_b != std::string::npos) {
    const VersionPart x = read_part(a, at_a);
    const VersionPart y = read_part(b, at_b);
    if (int r = compare_parts(x, y)) return r;
  }
  return 0;
}

}  // namespace tformer::catalog
