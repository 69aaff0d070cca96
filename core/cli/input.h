// The CLI's input: lines read from a stream in bounded pieces, each checked (UTF-8, length) before
// it reaches the engine, so that one bad or huge line costs neither the whole run nor unbounded
// memory. Kept apart from tformer.cc so that a fuzzer (tests/fuzz) can drive it on its own.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>

#include "tformer/error.h"

namespace tformer::cli {

// Reads lines ("\n"-terminated; a "\r" before it is dropped; a last line without "\n" counts).
// A line longer than `max_bytes` (0: no limit) is not kept: its first max_bytes bytes are, the
// rest is skipped and `too_long` says so, so memory stays bounded by max_bytes whatever comes in.
class LineReader {
 public:
  LineReader(std::FILE* in, size_t max_bytes) : in_(in), max_bytes_(max_bytes) {}
  // False at the end of the input (or on a read error: see error()).
  bool next(std::string& line, bool& too_long);
  // 0, or the errno of a failed read.
  int error() const { return error_; }
  size_t lines_read() const { return lines_; }

 private:
  std::FILE* in_;
  size_t max_bytes_;
  size_t lines_ = 0;
  int error_ = 0;
};

// The most bytes a line of `max_chars` UTF-8 characters can take (0: no limit).
size_t max_line_bytes(size_t max_chars);

// Why input line `number` (from 1) cannot be translated, or "" when it can: not valid UTF-8, or
// more than `max_chars` characters (0: no limit). `too_long`: LineReader cut the line.
std::string check_line(const std::string& line, bool too_long, size_t number, size_t max_chars);

// The engine's error about one input text, worded for the CLI's user: the text is input line
// `number` (from 1), and a length limit is the one of --max-chars.
std::string line_error(const Error& error, size_t number);

}  // namespace tformer::cli
