// A glossary written as a file (the CLI's --glossary FILE): UTF-8 text, one entry a line, its
// fields separated by tabs (TSV):
//
//   source<TAB>target<TAB>flags
//
// target and flags may be left out; an empty target keeps the source as it is (do not translate).
// flags: "i" matches the source in any case, "c" as written (the default). Spaces around a field
// are dropped; empty lines and lines whose first character (after spaces) is "#" are skipped; a
// UTF-8 byte order mark at the start and "\r" before a line's end are ignored.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "tformer/options.h"

namespace tformer {

// The most bytes of a glossary file: ample for kMaxGlossaryEntries entries of common length.
constexpr size_t kMaxGlossaryFileBytes = 16 << 20;

// The entries of a glossary file's `content`. Throws a tformer::Error (kInvalidOptions) that names
// `name` and the line at fault ("glossary 'terms.tsv' line 3: source is empty"): a line with more
// than three fields, an unknown flag, text that is not valid UTF-8, a bad entry
// (glossary_entry_problem), a source given twice, more than kMaxGlossaryEntries entries, or
// content longer than kMaxGlossaryFileBytes.
std::vector<GlossaryEntry> parse_glossary_file(std::string_view content, const std::string& name);

// Reads and parses the file at `path` (throws a tformer::Error as above, or when it cannot be read).
std::vector<GlossaryEntry> read_glossary_file(const std::string& path);

}  // namespace tformer
