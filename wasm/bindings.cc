// Embind bindings of the engine: the low-level API of the wasm modules (the npm package in web/
// wraps it). Names follow JS conventions; errors become JS Errors with the engine's messages.
//
//   const t = new Module.Translator(uint8ArrayOfTfmFile, threads);
//   const results = t.translate(["Hallo Welt."], {beam: 1, maxLength: 0, nbest: 1,
//                               returnScores: true, returnAlignment: false, splitSentences: true});
//   t.info(); t.delete();
//
// The step-wise session (web/src/webgpu/BRIDGE.md), for a backend in JS that computes the encoder
// and the output projection (WebGPU):
//   const s = t.begin(["Hallo Welt."], options);
//   for (let need = s.next(); need.kind !== 'done'; need = s.next()) {
//     if (need.kind === 'encode') s.provideEncoderOutput(states);  // need: batch, length, ids, lengths
//     else s.provideLogits(logits);         // need: rows, hidden, candidates (or provideCandidates)
//     // or s.computeOnCpu() for either
//   }
//   const results = s.results(); s.delete();
//   t.plan(): what to compute and which tensors it reads (tformer/model_plan.h, camelCase);
//   t.tensorView(name), t.positionsView(): the weights to upload.
// The typed arrays in `need`, and the views, alias wasm memory: valid until the next call into the
// module (memory may grow), so they are copied (e.g. by queue.writeBuffer) before any await.
#include <emscripten.h>
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "tformer/translator.h"

using emscripten::val;

namespace {

// Options as JS passes them. Embind requires every field of a value_object: the npm package
// fills in defaults (see web/src/options.js), and defaultOptions() returns a complete object.
struct JsOptions {
  int beam = 1;
  int maxLength = 0;
  int nbest = 1;
  bool returnScores = true;
  bool returnAlignment = false;
  bool splitSentences = true;
  int maxInputChars = int(tformer::TranslateOptions().max_input_chars);  // per input text; 0 = no limit
  int maxSentenceTokens = 0;   // tokens per sentence piece; 0 = the model's limit
};

tformer::TranslateOptions to_engine(const JsOptions& o) {
  tformer::TranslateOptions t;
  t.beam_size = o.beam;
  t.max_length = o.maxLength;
  t.nbest = o.nbest;
  t.return_alignment = o.returnAlignment;
  t.split_sentences = o.splitSentences;
  t.max_input_chars = o.maxInputChars < 0 ? 0 : size_t(o.maxInputChars);
  t.max_sentence_tokens = o.maxSentenceTokens;
  return t;
}

// Throwing a JS exception unwinds the wasm stack without running C++ destructors, so the
// message is kept in static storage and thrown only once no C++ object is alive in the frame.
EM_JS(void, throw_js_error, (const char* message), { throw new Error(UTF8ToString(message)); });

thread_local std::string last_error;

template <typename F>
auto guarded(F&& f) -> std::optional<decltype(f())> {
  try {
    return f();
  } catch (const std::exception& e) {
    last_error = e.what();
  } catch (...) {
    last_error = "unknown engine error";
  }
  return std::nullopt;
}

// Embind converts JS strings to UTF-8 by pairing a lone UTF-16 surrogate with whatever follows,
// which would turn broken text into wrong characters silently. Refuse it, as native refuses
// malformed UTF-8.
void check_surrogates(const val& text, size_t index) {
  static const val lone = val::global("RegExp").new_(
      val(std::string("[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]")));
  const int at = text.call<int>("search", lone);
  if (at >= 0)
    throw tformer::Error("input text " + std::to_string(index + 1) + " is not valid Unicode: lone UTF-16 surrogate at index " +
                         std::to_string(at));
}

template <typename T>
val int_array(const std::vector<T>& v) {
  // A JS copy: typed_memory_view would alias wasm memory that is freed after the call.
  return val::global("Int32Array").new_(val(emscripten::typed_memory_view(v.size(), v.data())));
}

val float_array(const std::vector<float>& v) {
  return val::global("Float32Array").new_(val(emscripten::typed_memory_view(v.size(), v.data())));
}

val string_array(const std::vector<std::string>& v) {
  val a = val::array();
  for (const auto& s : v) a.call<void>("push", s);
  return a;
}

val to_js(const tformer::Translation& t, const JsOptions& o) {
  val result = val::object();
  result.set("text", t.text);
  val sentences = val::array();
  for (const auto& s : t.sentences) {
    const tformer::Hypothesis& best = s.hypotheses.at(0);
    val js = val::object();
    js.set("source", s.source);
    js.set("text", best.text);
    js.set("sourceTokens", int_array(s.source_tokens));
    js.set("sourcePieces", string_array(s.source_pieces));
    js.set("tokens", int_array(best.tokens));
    js.set("targetPieces", string_array(s.target_pieces));
    if (o.returnScores) js.set("score", best.score);
    if (o.returnAlignment) js.set("alignment", float_array(s.alignment));
    if (o.nbest > 1) {
      val nbest = val::array();
      for (const auto& h : s.hypotheses) {
        val hj = val::object();
        hj.set("text", h.text);
        hj.set("tokens", int_array(h.tokens));
        if (o.returnScores) hj.set("score", h.score);
        nbest.call<void>("push", hj);
      }
      js.set("nbest", nbest);
    }
    sentences.call<void>("push", js);
  }
  result.set("sentences", sentences);
  return result;
}

// Runs f and returns its value, or throws its error as a JS Error (see throw_js_error).
template <typename F>
auto or_js_error(F&& f) -> decltype(f()) {
  if (auto out = guarded(std::forward<F>(f))) return std::move(*out);
  throw_js_error(last_error.c_str());
  __builtin_unreachable();
}

// The engine's session errors name its C++ calls; JS callers see the names they call.
std::string with_js_names(std::string message) {
  static const std::pair<const char*, const char*> names[] = {
      {"provide_encoder_output()", "provideEncoderOutput()"}, {"provide_logits()", "provideLogits()"},
      {"provide_candidates()", "provideCandidates()"},
      {"compute_on_cpu()", "computeOnCpu()"}, {"kDone", "kind 'done'"}};
  for (const auto& [cpp, js] : names)
    for (size_t at = message.find(cpp); at != std::string::npos; at = message.find(cpp, at + std::strlen(js)))
      message.replace(at, std::strlen(cpp), js);
  return message;
}

// Runs a call of the session, its errors in JS names.
template <typename F>
auto session_call(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const tformer::Error& e) {
    throw tformer::Error(with_js_names(e.what()));
  }
}

// One translation driven from JS: Module.TranslationSession, made by Translator.begin().
class JsSession {
 public:
  JsSession(std::unique_ptr<tformer::TranslationSession> session, const JsOptions& options)
      : session_(std::move(session)), options_(options) {}

  // {kind: 'encode', batch, length, ids: Int32Array, lengths: Int32Array}
  // | {kind: 'project', rows, hidden: Float32Array [rows * dModel], candidates} | {kind: 'done'}
  val next() {
    return or_js_error([&] {
      using Need = tformer::TranslationSession::Need;
      const Need need = session_call([&] { return session_->next(); });
      val out = val::object();
      if (need == Need::kEncode) {
        const auto& r = session_->encode_request();
        out.set("kind", std::string("encode"));
        out.set("batch", double(r.batch));
        out.set("length", double(r.length));
        out.set("ids", val(emscripten::typed_memory_view(r.ids.size(), r.ids.data())));
        out.set("lengths", val(emscripten::typed_memory_view(r.lengths.size(), r.lengths.data())));
      } else if (need == Need::kProject) {
        size_t rows = 0;
        const float* hidden = session_->hidden(&rows);
        out.set("kind", std::string("project"));
        out.set("rows", double(rows));
        out.set("candidates", double(session_->candidates_per_row()));
        out.set("hidden", val(emscripten::typed_memory_view(rows * session_->d_model(), hidden)));
      } else {
        out.set("kind", std::string("done"));
      }
      return out;
    });
  }

  // states: Float32Array [batch * length * dModel]
  void provide_encoder_output(const val& states) {
    or_js_error([&] {
      const size_t n = copy_in("provideEncoderOutput", states);
      session_call([&] { session_->provide_encoder_output(buffer_.data(), n); });
      return true;
    });
  }

  // logits: Float32Array [rows * vocabSize]
  void provide_logits(const val& logits) {
    or_js_error([&] {
      const size_t n = copy_in("provideLogits", logits);
      session_call([&] { session_->provide_logits(buffer_.data(), n); });
      return true;
    });
  }

  // rows: Float32Array [rows * (3 + 2 * candidates)]: see TranslationSession::provide_candidates
  void provide_candidates(const val& rows) {
    or_js_error([&] {
      const size_t n = copy_in("provideCandidates", rows);
      session_call([&] { session_->provide_candidates(buffer_.data(), n); });
      return true;
    });
  }

  void compute_on_cpu() {
    or_js_error([&] {
      session_call([&] { session_->compute_on_cpu(); });
      return true;
    });
  }

  val results() {
    return or_js_error([&] {
      val out = val::array();
      for (const auto& r : session_call([&] { return session_->results(); })) out.call<void>("push", to_js(r, options_));
      return out;
    });
  }

 private:
  // One copy from the JS array into wasm memory.
  size_t copy_in(const char* call, const val& array) {
    if (!array.instanceof(val::global("Float32Array")))
      throw tformer::Error(std::string(call) + "() takes a Float32Array");
    const size_t n = array["length"].as<size_t>();
    buffer_.resize(n);
    val(emscripten::typed_memory_view(n, buffer_.data())).call<void>("set", array);
    return n;
  }

  std::unique_ptr<tformer::TranslationSession> session_;
  JsOptions options_;
  std::vector<float> buffer_;
};

class JsTranslator {
 public:
  // `bytes`: a Uint8Array (or anything with length and set()) holding a .tfm file. It is copied
  // once, straight into wasm memory, and that buffer is what the engine loads from.
  static JsTranslator* create(const val& bytes, int threads) {
    std::optional<JsTranslator*> made = guarded([&] {
      if (!bytes.instanceof(val::global("Uint8Array")))
        throw tformer::Error("the model must be given as a Uint8Array holding a .tfm file");
      std::vector<uint8_t> buffer(bytes["length"].as<size_t>());
      val(emscripten::typed_memory_view(buffer.size(), buffer.data())).call<void>("set", bytes);
      tformer::TranslatorConfig config;
      config.threads = threads;
      return new JsTranslator(std::move(buffer), config);
    });
    if (!made) throw_js_error(last_error.c_str());
    return *made;
  }

  // Text handling for the requests that follow (TranslateOptions::passthrough and
  // repetition_guard): set by the npm package before each request, kept out of the options
  // value object so that callers of translate() and begin() need not name them.
  void set_text_handling(bool passthrough, bool repetition_guard) {
    passthrough_ = passthrough;
    repetition_guard_ = repetition_guard;
  }

  val translate(const val& texts, const JsOptions& options) {
    if (std::optional<val> out = guarded([&] { return translate_unguarded(texts, options); })) return *out;
    throw_js_error(last_error.c_str());
    return val::undefined();
  }

  std::unique_ptr<JsSession> begin(const val& texts, const JsOptions& options) {
    return or_js_error([&] {
      return std::make_unique<JsSession>(translator_.begin(texts_of(texts), with_text_handling(to_engine(options))), options);
    });
  }

  // A weight tensor as a Float32Array: a view of the model file in wasm memory when the file
  // stores it as f32, else a converted copy (f16 widened, int8 dequantised by the engine).
  val tensor_view(const std::string& name) {
    return or_js_error([&] {
      tformer::TensorFloats t = translator_.tensor_floats(name);
      val view(emscripten::typed_memory_view(t.size, t.data));
      return t.converted.empty() ? view : val::global("Float32Array").new_(view);
    });
  }

  // The positional encodings the engine adds: Float32Array view [maxPositions * dModel].
  val positions_view() const {
    const std::vector<float>& p = translator_.positions();
    return val(emscripten::typed_memory_view(p.size(), p.data()));
  }

  // The engine's plan of the encoder and the output projection (tformer/model_plan.h) as a JS
  // object with camelCase keys; a product the model does not have is null.
  val plan() const {
    const tformer::ModelPlan p = translator_.plan();
    val js = val::object();
    js.set("dModel", p.d_model);
    js.set("heads", p.heads);
    js.set("ffnDim", p.ffn_dim);
    js.set("sourceEmbedding", p.source_embedding);
    js.set("embeddingScale", p.embedding_scale);
    val layers = val::array();
    for (const tformer::EncoderLayerPlan& l : p.encoder_layers) {
      val lj = val::object();
      lj.set("norm", l.norm);
      lj.set("rawSelfKv", l.raw_self_kv);
      lj.set("qkv", linear_plan(l.qkv));
      lj.set("q", linear_plan(l.q));
      lj.set("kv", linear_plan(l.kv));
      lj.set("o", linear_plan(l.o));
      lj.set("selfAttentionNorm", norm_plan(l.self_attention_norm));
      lj.set("ffnW1", linear_plan(l.ffn_w1));
      lj.set("ffnW2", linear_plan(l.ffn_w2));
      lj.set("activation", l.activation);
      lj.set("ffnNorm", norm_plan(l.ffn_norm));
      layers.call<void>("push", lj);
    }
    js.set("encoderLayers", layers);
    js.set("encoderFinalNorm", norm_plan(p.encoder_final_norm));
    js.set("output", linear_plan(p.output));
    return js;
  }

  val info() const {
    const tformer::ModelInfo& i = translator_.info();
    val js = val::object();
    val json = val::global("JSON");
    js.set("config", json.call<val>("parse", i.config_json));
    js.set("metadata", json.call<val>("parse", i.metadata_json));
    js.set("fileBytes", double(i.file_bytes));
    js.set("parameters", double(i.parameters));
    js.set("backend", translator_.backend_name());
    js.set("threads", translator_.threads());
    val tensors = val::array();
    for (const auto& t : i.tensors) {
      val tj = val::object();
      tj.set("name", t.name);
      tj.set("dtype", t.dtype);
      val shape = val::array();
      for (int64_t d : t.shape) shape.call<void>("push", double(d));
      tj.set("shape", shape);
      tj.set("bytes", double(t.bytes));
      tensors.call<void>("push", tj);
    }
    js.set("tensors", tensors);
    return js;
  }

 private:
  JsTranslator(std::vector<uint8_t> bytes, const tformer::TranslatorConfig& config)
      : translator_(std::move(bytes), config) {}

  tformer::TranslateOptions with_text_handling(tformer::TranslateOptions o) const {
    o.passthrough = passthrough_;
    o.repetition_guard = repetition_guard_;
    return o;
  }

  val translate_unguarded(const val& texts, const JsOptions& options) {
    const auto results = translator_.translate(texts_of(texts), with_text_handling(to_engine(options)));
    val out = val::array();
    for (const auto& r : results) out.call<void>("push", to_js(r, options));
    return out;
  }

  static val strings(const std::vector<std::string>& items) {
    val out = val::array();
    for (const std::string& s : items) out.call<void>("push", s);
    return out;
  }
  static val linear_plan(const tformer::LinearPlan& p) {
    if (p.weights.empty()) return val::null();
    val js = val::object();
    js.set("weights", strings(p.weights));
    js.set("biases", strings(p.biases));
    js.set("in", double(p.in));
    js.set("out", double(p.out));
    return js;
  }
  static val norm_plan(const tformer::NormPlan& p) {
    if (p.weight.empty()) return val::null();
    val js = val::object();
    js.set("weight", p.weight);
    js.set("bias", p.bias);
    js.set("eps", p.eps);
    return js;
  }

  // A string or an array of strings, checked.
  static std::vector<std::string> texts_of(const val& texts) {
    std::vector<std::string> inputs;
    const bool single = texts.typeOf().as<std::string>() == "string";
    if (single) {
      inputs.push_back(texts.as<std::string>());
    } else {
      if (!val::global("Array").call<bool>("isArray", texts))
        throw tformer::Error("translate() takes a string or an array of strings");
      const size_t n = texts["length"].as<size_t>();
      for (size_t i = 0; i < n; ++i) {
        const val item = texts[i];
        if (item.typeOf().as<std::string>() != "string")
          throw tformer::Error("translate(): item " + std::to_string(i) + " is not a string");
        inputs.push_back(item.as<std::string>());
      }
    }
    for (size_t i = 0; i < inputs.size(); ++i) check_surrogates(single ? texts : val(texts[i]), i);
    return inputs;
  }

  tformer::Translator translator_;
  bool passthrough_ = false, repetition_guard_ = false;  // set_text_handling()
};

JsOptions default_options() { return JsOptions{}; }

// The engine's limits that the npm package checks up front (web/src/options.js), read from here so
// that they are written once, in C++.
val limits() {
  val js = val::object();
  js.set("maxBeam", tformer::kMaxBeamSize);
  js.set("defaultMaxInputChars", double(tformer::TranslateOptions().max_input_chars));
  return js;
}

}  // namespace

EMSCRIPTEN_BINDINGS(tformer) {
  emscripten::value_object<JsOptions>("TranslateOptions")
      .field("beam", &JsOptions::beam)
      .field("maxLength", &JsOptions::maxLength)
      .field("nbest", &JsOptions::nbest)
      .field("returnScores", &JsOptions::returnScores)
      .field("returnAlignment", &JsOptions::returnAlignment)
      .field("splitSentences", &JsOptions::splitSentences)
      .field("maxInputChars", &JsOptions::maxInputChars)
      .field("maxSentenceTokens", &JsOptions::maxSentenceTokens);
  emscripten::function("defaultOptions", &default_options);
  emscripten::function("limits", &limits);
  emscripten::class_<JsTranslator>("Translator")
      .constructor(&JsTranslator::create, emscripten::allow_raw_pointers())
      .function("translate", &JsTranslator::translate)
      .function("begin", &JsTranslator::begin)
      .function("setTextHandling", &JsTranslator::set_text_handling)
      .function("tensorView", &JsTranslator::tensor_view)
      .function("positionsView", &JsTranslator::positions_view)
      .function("plan", &JsTranslator::plan)
      .function("info", &JsTranslator::info);
  emscripten::class_<JsSession>("TranslationSession")
      .function("next", &JsSession::next)
      .function("provideEncoderOutput", &JsSession::provide_encoder_output)
      .function("provideLogits", &JsSession::provide_logits)
      .function("provideCandidates", &JsSession::provide_candidates)
      .function("computeOnCpu", &JsSession::compute_on_cpu)
      .function("results", &JsSession::results);
}
