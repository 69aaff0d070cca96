// The translate option `glossary` as JS gives it: an array of {source, target?, caseSensitive?}
// (tformer::GlossaryEntry: a missing target keeps the source as it is; caseSensitive defaults to
// the engine's GlossaryEntry::case_sensitive).
#pragma once

#include <emscripten/val.h>

#include <vector>

#include "tformer/options.h"

namespace tformer::wasm {

// Throws a tformer::Error (kInvalidArgument, phase kRequest) for a value that is not such an
// array, naming the item and key ("option 'glossary': item 2: 'source' must be a string (got
// number 3)"); an array longer than kMaxGlossaryEntries is refused before its items are read. The
// entries' own rules (empty source, control characters...) are the engine's to check
// (tformer::validate).
std::vector<GlossaryEntry> read_glossary(const emscripten::val& value);

}  // namespace tformer::wasm
