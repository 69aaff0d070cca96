// Module.Translator: a model loaded into the engine (tformer/translator.h).
//   const t = new Module.Translator(uint8ArrayOfTfmFile, threads);
//   const results = t.translate(["Hallo Welt."], {beam: 4});   // options: translate_options.h
//   const session = t.begin(["Hallo Welt."], options);          // step by step: session.h
//   t.translateThrough(second, texts, options);  // this model, then `second`, sentence by sentence
//                                                // (a pair through English: tformer/pivot.h)
//   t.beginThrough(second, texts, options, stream);  // the same step by step (session.h); with
//                                                // `stream`, each sentence through both as it ends
//   t.info(); t.plan(); t.tensorView(name); t.positionsView(); t.delete();
#include <emscripten/bind.h>

#include <memory>
#include <string>
#include <vector>

#include "error.h"
#include "js_values.h"
#include "model_plan.h"
#include "results.h"
#include "session.h"
#include "texts.h"
#include "translate_options.h"
#include "tformer/pivot.h"
#include "tformer/translator.h"

namespace tformer::wasm {
namespace {

class JsTranslator {
 public:
  // `bytes`: a Uint8Array holding a .tfm file. It is copied once, straight into wasm memory, and
  // that buffer is what the engine loads from.
  static JsTranslator* create(const val& bytes, int threads) {
    return or_js_error("new Translator", [&] {
      if (!bytes.instanceof(val::global("Uint8Array")))
        throw Error(ErrorCode::kInvalidArgument, Phase::kLoad, "the model must be given as a Uint8Array holding a .tfm file");
      std::vector<uint8_t> buffer(bytes["length"].as<size_t>());
      val(emscripten::typed_memory_view(buffer.size(), buffer.data())).call<void>("set", bytes);
      TranslatorConfig config;
      config.threads = threads;
      return new JsTranslator(std::move(buffer), config);
    });
  }

  val translate(const val& texts, const val& options) {
    return or_js_error("translate", [&] {
      const RequestOptions o = read_options(options);
      const auto results = translator_.translate(read_texts(texts), o);
      return array_of(results, [&](const Translation& t) { return to_js(t, o); });
    });
  }

  // Through a pivot language: this model's translation of each sentence, translated by `second`.
  val translate_through(JsTranslator& second, const val& texts, const val& options) {
    return or_js_error("translateThrough", [&] {
      const RequestOptions o = read_options(options);
      PivotTranslator pivot(translator_, second.translator_);
      const auto results = pivot.translate(read_texts(texts), o);
      return array_of(results, [&](const Translation& t) { return to_js(t, o); });
    });
  }

  // A pair through English step by step (PivotSession): both translators must outlive the session.
  std::unique_ptr<JsSession> begin_through(JsTranslator& second, const val& texts, const val& options, bool stream) {
    return or_js_error("beginThrough", [&] {
      const RequestOptions o = read_options(options);
      return std::make_unique<JsSession>(PivotTranslator(translator_, second.translator_).begin(read_texts(texts), o, stream), o);
    });
  }

  std::unique_ptr<JsSession> begin(const val& texts, const val& options) {
    return or_js_error("begin", [&] {
      const RequestOptions o = read_options(options);
      return std::make_unique<JsSession>(translator_.begin(read_texts(texts), o), o);
    });
  }

  // A weight tensor as a Float32Array: a view of the model file in wasm memory when the file
  // stores it as f32, else a converted copy (f16 widened, int8 dequantised by the engine).
  val tensor_view(const std::string& name) {
    return or_js_error("tensorView", [&] {
      TensorFloats t = translator_.tensor_floats(name);
      val view(emscripten::typed_memory_view(t.size, t.data));
      return t.converted.empty() ? view : val::global("Float32Array").new_(view);
    });
  }

  // The positional encodings the engine adds: Float32Array view [maxPositions * dModel].
  val positions_view() const {
    const std::vector<float>& p = translator_.positions();
    return val(emscripten::typed_memory_view(p.size(), p.data()));
  }

  val plan() const {
    return or_js_error("plan", [&] { return to_js(translator_.plan()); });
  }

  // The model (config and metadata as the engine reads them, sizes, tensors) and how it runs:
  // threads, and `kernels`, the engine's kernel library ('xnnpack'). ("backend" is where a
  // translation runs, in the npm package: 'wasm' or 'webgpu'.)
  val info() const {
    return or_js_error("info", [&] {
      const ModelInfo& i = translator_.info();
      const val json = val::global("JSON");
      auto tensor = [](const TensorInfo& t) {
        std::vector<double> shape(t.shape.begin(), t.shape.end());
        return object({{"name", val(t.name)},
                       {"dtype", val(t.dtype)},
                       {"shape", array_of(shape, [](double d) { return val(d); })},
                       {"bytes", val(double(t.bytes))}});
      };
      return object({{"config", json.call<val>("parse", i.config_json)},
                     {"metadata", json.call<val>("parse", i.metadata_json)},
                     {"fileBytes", val(double(i.file_bytes))},
                     {"parameters", val(double(i.parameters))},
                     {"kernels", val(translator_.kernels_name())},
                     {"threads", val(translator_.threads())},
                     {"tensors", array_of(i.tensors, tensor)}});
    });
  }

 private:
  JsTranslator(std::vector<uint8_t> bytes, const TranslatorConfig& config) : translator_(std::move(bytes), config) {}

  Translator translator_;
};

}  // namespace

EMSCRIPTEN_BINDINGS(translator) {
  emscripten::class_<JsTranslator>("Translator")
      .constructor(&JsTranslator::create, emscripten::allow_raw_pointers())
      .function("translate", &JsTranslator::translate)
      .function("begin", &JsTranslator::begin)
      .function("translateThrough", &JsTranslator::translate_through)
      .function("beginThrough", &JsTranslator::begin_through)
      .function("tensorView", &JsTranslator::tensor_view)
      .function("positionsView", &JsTranslator::positions_view)
      .function("plan", &JsTranslator::plan)
      .function("info", &JsTranslator::info);
}

}  // namespace tformer::wasm
