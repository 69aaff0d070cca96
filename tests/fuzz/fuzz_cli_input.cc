// libFuzzer harness: the CLI's input handling (core/cli/input.cc) on arbitrary bytes: lines read in
// bounded pieces and checked for UTF-8 and length, as `tformer translate` does before any line
// reaches the engine. The first byte picks the character limit.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "input.h"
#include "util/utf8.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t limits[] = {0, 1, 3, 16, 100000};
  const size_t max_chars = limits[data[0] % 5];
  std::FILE* in = fmemopen(const_cast<uint8_t*>(data + 1), size - 1, "rb");
  if (!in) return 0;  // fmemopen refuses a zero-length buffer
  tformer::cli::LineReader reader(in, tformer::cli::max_line_bytes(max_chars));
  std::string line;
  bool too_long = false;
  size_t bytes = 0;
  while (reader.next(line, too_long)) {
    bytes += line.size();
    if (max_chars && line.size() > tformer::cli::max_line_bytes(max_chars)) __builtin_trap();
    const std::string problem = tformer::cli::check_line(line, too_long, reader.lines_read(), max_chars);
    // What passes is valid UTF-8 within the limit; what fails says which line.
    if (problem.empty()) {
      if (too_long || tformer::find_invalid_utf8(line) != std::string::npos) __builtin_trap();
      if (max_chars && tformer::count_chars(line) > max_chars) __builtin_trap();
    } else if (problem.rfind("line " + std::to_string(reader.lines_read()), 0) != 0) {
      __builtin_trap();
    }
  }
  if (bytes > size || reader.error()) __builtin_trap();
  std::fclose(in);
  return 0;
}
