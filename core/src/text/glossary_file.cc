#include "text/glossary_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "text/glossary.h"
#include "tformer/error.h"
#include "util/utf8.h"

namespace tformer {
namespace {

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

}  // namespace

std::vector<GlossaryEntry> parse_glossary_file(std::string_view content, const std::string& name) {
  auto bad = [&](const std::string& what) { throw Error(ErrorCode::kInvalidOptions, Phase::kRequest, "glossary " + name + what); };
  if (content.size() > kMaxGlossaryFileBytes)
    bad(" is longer than the " + std::to_string(kMaxGlossaryFileBytes) + " bytes a glossary may have");
  if (content.substr(0, 3) == "\xEF\xBB\xBF") content.remove_prefix(3);
  std::vector<GlossaryEntry> entries;
  std::vector<size_t> lines;  // the line of each entry
  size_t line = 0;
  for (size_t at = 0; at < content.size();) {
    ++line;
    size_t end = content.find('\n', at);
    if (end == std::string_view::npos) end = content.size();
    std::string_view text = content.substr(at, end - at);
    at = end + 1;
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    const std::string where = " line " + std::to_string(line) + ": ";
    const size_t invalid = find_invalid_utf8(text);
    if (invalid != std::string_view::npos) {
      char byte[8];
      std::snprintf(byte, sizeof byte, "0x%02X", unsigned(static_cast<unsigned char>(text[invalid])));
      bad(where + "is not valid UTF-8: byte " + byte + " at column " + std::to_string(invalid + 1));
    }
    const std::string_view bare = trimmed(text);
    if (bare.empty() || bare.front() == '#') continue;
    std::vector<std::string_view> fields;
    for (size_t f = 0;;) {
      const size_t tab = text.find('\t', f);
      fields.push_back(trimmed(text.substr(f, tab == std::string_view::npos ? std::string_view::npos : tab - f)));
      if (tab == std::string_view::npos) break;
      f = tab + 1;
    }
    if (fields.size() > 3)
      bad(where + "has " + std::to_string(fields.size()) + " fields; a line is a source, a target and flags, separated by tabs");
    // A line without a tab is one term kept as it is; a run of spaces in it is a tab an editor
    // expanded (such a term would never match a sentence's single spaces): refused, not kept.
    if (fields.size() == 1 && fields[0].find("  ") != std::string_view::npos)
      bad(where + "has no tab but a run of spaces (\"" + std::string(fields[0]) + "\"): a line is a source, a target and flags, " +
          "separated by tabs (a term kept as it is has no target, and single spaces between its words)");
    GlossaryEntry entry;
    entry.source = std::string(fields[0]);
    if (fields.size() > 1 && !fields[1].empty()) entry.target = std::string(fields[1]);
    if (fields.size() > 2)
      for (const char flag : fields[2]) {
        if (flag == 'i') entry.case_sensitive = false;
        else if (flag == 'c') entry.case_sensitive = true;
        else bad(where + "unknown flag '" + std::string(1, flag) + "' (i: any case, c: case as written)");
      }
    const std::string problem = glossary_entry_problem(entry);
    if (!problem.empty()) bad(where + problem);
    if (entries.size() == kMaxGlossaryEntries) bad(where + "more than " + std::to_string(kMaxGlossaryEntries) + " entries");
    entries.push_back(std::move(entry));
    lines.push_back(line);
  }
  const std::string problem = glossary_problem(entries, [&](size_t i) { return "line " + std::to_string(lines[i]); });
  if (!problem.empty()) bad(" " + problem);
  return entries;
}

std::vector<GlossaryEntry> read_glossary_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCode::kInvalidOptions, Phase::kRequest, "cannot open glossary '" + path + "': " + std::strerror(errno));
  std::string content;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    content.append(buffer, size_t(in.gcount()));
    if (content.size() > kMaxGlossaryFileBytes) break;  // parse_glossary_file says so; no need to read on
  }
  if (in.bad()) throw Error(ErrorCode::kInvalidOptions, Phase::kRequest, "cannot read glossary '" + path + "'");
  return parse_glossary_file(content, "'" + path + "'");
}

}  // namespace tformer
