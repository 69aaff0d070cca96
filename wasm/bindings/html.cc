// The HTML projection on its own (tformer/html.h), for translations made elsewhere and for the
// tests' table (tests/fixtures/html/cases.json):
//   Module.htmlBlockTexts(html, translateCode) -> [string]: the texts of the fragment's blocks
//   Module.projectHtml(html, [[{source, target, alignment?: [int]}, ...], ...], translateCode)
//     -> the fragment with each block's sentences replaced by their translations
#include <emscripten/bind.h>

#include <string>
#include <vector>

#include "error.h"
#include "js_values.h"
#include "tformer/html.h"

namespace tformer::wasm {
namespace {

Error invalid_argument(const std::string& detail) { return Error(ErrorCode::kInvalidArgument, Phase::kRequest, detail); }

val html_block_texts(const std::string& html, bool translate_code) {
  return or_js_error("htmlBlockTexts", [&] { return string_array(tformer::html_block_texts(html, translate_code)); });
}

// One sentence of a block: {source, target, alignment?: [int]}.
HtmlSentenceTranslation sentence_of(const val& s, const std::string& where) {
  if (!is_object(s) || type_of(s["source"]) != "string" || type_of(s["target"]) != "string")
    throw invalid_argument(where + " is not a {source: string, target: string} object");
  HtmlSentenceTranslation h{s["source"].as<std::string>(), s["target"].as<std::string>(), {}};
  const val a = s["alignment"];
  if (a.isUndefined()) return h;
  if (!is_array(a)) throw invalid_argument(where + ": alignment must be an array of integers");
  for (size_t t = 0; t < a["length"].as<size_t>(); ++t) {
    if (!val::global("Number")["isInteger"](a[t]).as<bool>()) throw invalid_argument(where + ": alignment must be an array of integers");
    h.alignment.push_back(a[t].as<int>());
  }
  return h;
}

std::string project_html(const std::string& html, const val& blocks, bool translate_code) {
  return or_js_error("projectHtml", [&] {
    if (!is_array(blocks)) throw invalid_argument("blocks must be an array of arrays of sentences");
    std::vector<std::vector<HtmlSentenceTranslation>> list(blocks["length"].as<size_t>());
    for (size_t b = 0; b < list.size(); ++b) {
      const val block = blocks[b];
      if (!is_array(block)) throw invalid_argument("block " + std::to_string(b) + " is not an array");
      for (size_t i = 0; i < block["length"].as<size_t>(); ++i)
        list[b].push_back(sentence_of(block[i], "block " + std::to_string(b) + ", sentence " + std::to_string(i)));
    }
    return tformer::project_html(html, list, translate_code);
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(html) {
  emscripten::function("htmlBlockTexts", &html_block_texts);
  emscripten::function("projectHtml", &project_html);
}

}  // namespace tformer::wasm
