// A Marian model folder (Firefox Translations, OPUS-MT) -> a .tfm image (tformer/marian.h):
//   Module.importMarian([{name: 'model.deen.intgemm.alphas.bin', bytes: Uint8Array}, ...],
//                       {weights, model, vocabs, spms, config, maxPositions, name})   // all optional
//   -> {tfm: Uint8Array, name, modelFile, summary: object, warnings: [string]}
// The .tfm is what `new Translator(tfm, threads)` then loads; a .gz file is decompressed by the
// importer (the npm package decompresses in JS first).
#include <emscripten/bind.h>

#include <string>
#include <vector>

#include "error.h"
#include "js_values.h"
#include "tformer/marian.h"

namespace tformer::wasm {
namespace {

Error invalid_argument(const std::string& detail) { return Error(ErrorCode::kInvalidArgument, Phase::kImport, detail); }

std::vector<MarianFile> files_of(const val& files) {
  if (!is_array(files)) throw invalid_argument("takes an array of {name, bytes} files");
  std::vector<MarianFile> list;
  const size_t n = files["length"].as<size_t>();
  for (size_t i = 0; i < n; ++i) {
    const val f = files[i];
    if (!is_object(f) || type_of(f["name"]) != "string" || !f["bytes"].instanceof(val::global("Uint8Array")))
      throw invalid_argument("file " + std::to_string(i) + " is not a {name: string, bytes: Uint8Array} object");
    MarianFile file{f["name"].as<std::string>(), std::vector<uint8_t>(f["bytes"]["length"].as<size_t>())};
    val(emscripten::typed_memory_view(file.bytes.size(), file.bytes.data())).call<void>("set", f["bytes"]);
    list.push_back(std::move(file));
  }
  return list;
}

MarianImportOptions options_of(const val& options) {
  MarianImportOptions o;
  if (options.isUndefined() || options.isNull()) return o;
  auto text = [&](const char* key, std::string& into) {
    if (options[key].isUndefined()) return;
    if (type_of(options[key]) != "string") throw invalid_argument(std::string("option '") + key + "' must be a string");
    into = options[key].as<std::string>();
  };
  auto texts = [&](const char* key, std::vector<std::string>& into) {
    const val v = options[key];
    if (v.isUndefined()) return;
    if (!is_array(v)) throw invalid_argument(std::string("option '") + key + "' must be an array of strings");
    for (size_t i = 0; i < v["length"].as<size_t>(); ++i) {
      if (type_of(v[i]) != "string") throw invalid_argument(std::string("option '") + key + "' must be an array of strings");
      into.push_back(v[i].as<std::string>());
    }
  };
  text("weights", o.weights);
  text("model", o.model);
  texts("vocabs", o.vocabs);
  texts("spms", o.spms);
  text("config", o.config);
  text("name", o.name);
  if (!options["maxPositions"].isUndefined()) {
    if (type_of(options["maxPositions"]) != "number") throw invalid_argument("option 'maxPositions' must be a number");
    o.max_positions = options["maxPositions"].as<int>();
  }
  return o;
}

val import_marian(const val& files, const val& options) {
  return or_js_error("importMarian", [&] {
    std::vector<MarianFile> list = files_of(files);
    MarianImport m = tformer::import_marian(list, options_of(options));
    list.clear();  // the folder's bytes go before the .tfm is copied out
    list.shrink_to_fit();
    const val tfm = val::global("Uint8Array").new_(val(emscripten::typed_memory_view(m.tfm.size(), m.tfm.data())));
    return object({{"tfm", tfm},
                   {"name", val(m.name)},
                   {"modelFile", val(m.model_file)},
                   {"summary", val::global("JSON").call<val>("parse", m.summary_json)},
                   {"warnings", string_array(m.warnings)}});
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(marian_import) { emscripten::function("importMarian", &import_marian); }

}  // namespace tformer::wasm
