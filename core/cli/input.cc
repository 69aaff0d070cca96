#include "input.h"

#include <cerrno>

#include "util/utf8.h"

namespace tformer::cli {

bool LineReader::next(std::string& line, bool& too_long) {
  line.clear();
  too_long = false;
  bool any = false;
  for (int c; (c = std::getc(in_)) != EOF;) {
    any = true;
    if (c == '\n') break;
    if (max_bytes_ == 0 || line.size() < max_bytes_ + 1)  // one byte more: a "\r" may still go
      line.push_back(char(c));
    else
      too_long = true;
  }
  if (!any) {
    if (std::ferror(in_)) error_ = errno ? errno : EIO;
    return false;
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (max_bytes_ != 0 && line.size() > max_bytes_) {
    line.resize(max_bytes_);
    too_long = true;
  }
  ++lines_;
  return true;
}

size_t max_line_bytes(size_t max_chars) { return max_chars == 0 ? 0 : 4 * max_chars; }

std::string check_line(const std::string& line, bool too_long, size_t number, size_t max_chars) {
  if (too_long)
    return "line " + std::to_string(number) + " has more than " + std::to_string(max_chars) +
           " characters (the limit of --max-chars)";
  try {
    require_valid_utf8(line, 0);
    require_at_most_chars(line, max_chars, 0);
  } catch (const Error& e) {
    return line_error(e, number);
  }
  return {};
}

std::string line_error(const Error& error, size_t number) {
  std::string message = "line " + std::to_string(number) + " " + error.detail();
  if (error.code() == ErrorCode::kTextTooLong) message += " (--max-chars)";
  return message;
}

}  // namespace tformer::cli
