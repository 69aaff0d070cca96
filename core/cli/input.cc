#include "input.h"

#include <cerrno>

#include "tformer/error.h"
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
  const std::string what = "line " + std::to_string(number);
  if (too_long)
    return what + " has more than " + std::to_string(max_chars) + " characters (the limit of --max-chars)";
  try {
    require_valid_utf8(line, what.c_str());
    require_at_most_chars(line, max_chars, what.c_str());
  } catch (const Error& e) {
    std::string message = e.what();
    if (message.find("characters, more than the limit") != std::string::npos) message += " (--max-chars)";
    return message;
  }
  return {};
}

}  // namespace tformer::cli
