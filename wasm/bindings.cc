// Embind bindings of the engine: the low-level API of the wasm modules (the npm package in web/
// wraps it). Names follow JS conventions; errors are JS Errors worded for JS, with the engine's
// code, phase and detail as properties (see throw_js_error).
//
//   const t = new Module.Translator(uint8ArrayOfTfmFile, threads);
//   const results = t.translate(["Hallo Welt."], {beam: 4, returnAlignment: true});  // every key optional
//   t.info(); t.delete();   // info().kernels: the kernel library (xnnpack); info().backend: its old name
//   Module.defaultOptions(): every option at the engine's default; Module.limits(): its bounds.
//   Module.projectHtml(html, blocks), Module.htmlBlockTexts(html): the HTML projection alone.
//   Module.importMarian(files, options): a Marian model folder -> .tfm bytes (see import_marian).
//   Module.profileEnable(true); ...translate...; Module.profileTake(): {phase: ms} since the last
//   take (tformer/profile.h; the phases of `tformer bench --profile`); off by default.
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
//   need.completed: the sentences that ended in that next() call, if any (streaming).
//   t.plan(): what to compute and which tensors it reads (tformer/model_plan.h, camelCase);
//   t.tensorView(name), t.positionsView(): the weights to upload.
// The typed arrays in `need`, and the views, alias wasm memory: valid until the next call into the
// module (memory may grow), so they are copied (e.g. by queue.writeBuffer) before any await.
#include <emscripten.h>
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "tformer/marian.h"
#include "tformer/html.h"
#include "tformer/profile.h"
#include "tformer/translator.h"

using emscripten::val;

namespace {

// Errors leave the bindings one way: as a JS Error worded for JS callers, with the engine's error
// (tformer/error.h) as its properties, so that no caller needs to read the message:
//   call    the JS call that failed ('translate', 'begin', 'provideLogits', 'new Translator', ...)
//   code    what is wrong (tformer::code_name: 'invalid_options', 'invalid_text', 'text_too_long',
//           'wrong_state', 'invalid_values', 'invalid_model', ...)
//   phase   where the engine was (tformer::phase_name: 'load', 'request', 'translate', 'next', ...)
//   detail  the engine's own words, naming no call
//   input   the input text at fault, from 0 (only when one is)
// The message: "translate(): input text 2 is not valid UTF-8: byte 0xC3 at offset 4"; a session
// call names itself and what fits instead, in JS names: "provideLogits() needs a projection
// request, but no request is pending (call next())".
//
// Throwing a JS exception unwinds the wasm stack without running C++ destructors, so the error
// is kept in static storage and thrown only once no C++ object is alive in the frame.

// The JS name of a session call: the calls JS makes, and the engine's answers that next() returns.
const char* js_name(tformer::Phase call) {
  using tformer::Phase;
  switch (call) {
    case Phase::kProvideEncoderOutput: return "provideEncoderOutput";
    case Phase::kProvideLogits: return "provideLogits";
    case Phase::kProvideCandidates: return "provideCandidates";
    case Phase::kComputeOnCpu: return "computeOnCpu";
    case Phase::kResults: return "results";
    default: return "next";  // next(), and what its answer carries (encode request, hidden, candidates...)
  }
}

std::string js_message(const char* call, const tformer::Error& e) {
  if (tformer::is_session_call(e.phase())) {
    std::string message = std::string(js_name(e.phase())) + "() " + e.detail();
    std::vector<std::string> fit;
    for (tformer::Phase p : e.calls_that_fit()) {
      const std::string name = std::string(js_name(p)) + "()";
      if (std::find(fit.begin(), fit.end(), name) == fit.end()) fit.push_back(name);
    }
    if (!fit.empty()) message += " (call " + tformer::join_alternatives(fit) + ")";
    return message;
  }
  const std::string subject = e.input() ? "input text " + std::to_string(*e.input() + 1) + " " : "";
  return std::string(call) + "(): " + subject + e.detail();
}

EM_JS(void, throw_error, (const char* call, const char* message, const char* code, const char* phase, const char* detail, int input), {
  const error = new Error(UTF8ToString(message));
  error.call = UTF8ToString(call);
  error.code = UTF8ToString(code);
  error.phase = UTF8ToString(phase);
  error.detail = UTF8ToString(detail);
  if (input >= 0) error.input = input;
  throw error;
});

// What throw_js_error hands to JS, kept past the unwinding.
struct JsError {
  std::string call, message, code, phase, detail;
  int input = -1;
};
thread_local JsError js_error;

[[noreturn]] void throw_js_error(const char* call, const tformer::Error& e) {
  js_error = {call, js_message(call, e), tformer::code_name(e.code()), tformer::phase_name(e.phase()), e.detail(),
              e.input() ? int(*e.input()) : -1};
  throw_error(js_error.call.c_str(), js_error.message.c_str(), js_error.code.c_str(), js_error.phase.c_str(),
              js_error.detail.c_str(), js_error.input);
  __builtin_unreachable();
}

// Runs f and returns its value, or throws its error as the JS Error of the JS call `call` (see
// throw_js_error). Every entry point from JS that can fail goes through here.
template <typename F>
auto or_js_error(const char* call, F&& f) -> decltype(f()) {
  static thread_local tformer::Error pending("");
  try {
    return f();
  } catch (const tformer::Error& e) {
    pending = e;
  } catch (const std::exception& e) {
    pending = tformer::Error(tformer::ErrorCode::kInternal, tformer::Phase::kTranslate, e.what());
  } catch (...) {
    pending = tformer::Error(tformer::ErrorCode::kInternal, tformer::Phase::kTranslate, "unknown engine error");
  }
  throw_js_error(call, pending);
}

// Embind converts JS strings to UTF-8 by pairing a lone UTF-16 surrogate with whatever follows,
// which would turn broken text into wrong characters silently. Refuse it, as native refuses
// malformed UTF-8.
void check_surrogates(const val& text, size_t index) {
  static const val lone = val::global("RegExp").new_(
      val(std::string("[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]")));
  const int at = text.call<int>("search", lone);
  if (at >= 0)
    throw tformer::Error::about_input(tformer::ErrorCode::kInvalidText, index,
                                      "is not valid Unicode: lone UTF-16 surrogate at index " + std::to_string(at));
}

// JS values from C++ values: the one way the bindings build what they return.
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

template <typename T, typename F>
val array_of(const std::vector<T>& items, F&& to_js) {
  val a = val::array();
  for (const T& item : items) a.call<void>("push", to_js(item));
  return a;
}

// {key: value, ...}; a field whose value is undefined is left out.
val object(std::initializer_list<std::pair<const char*, val>> fields) {
  val o = val::object();
  for (const auto& [key, value] : fields)
    if (!value.isUndefined()) o.set(key, value);
  return o;
}

// An optional field of object(): present when `when`.
val when(bool present, val value) { return present ? value : val::undefined(); }

// What JS's typeof says of a value, and the kinds of value the checks below tell apart.
std::string type_of(const val& v) { return v.typeOf().as<std::string>(); }
bool is_array(const val& v) { return val::global("Array").call<bool>("isArray", v); }
bool is_object(const val& v) { return type_of(v) == "object" && !v.isNull() && !is_array(v); }

// A short description of a value, for errors: "the string \"x\"", "number 1.5", "null", "an array".
std::string describe(const val& v) {
  if (v.isNull()) return "null";
  if (is_array(v)) return "an array";
  const std::string type = type_of(v);
  if (type == "string") {
    std::string s = v.as<std::string>();
    if (s.size() > 40) s = s.substr(0, 40) + "...";
    return "the string " + val::global("JSON").call<std::string>("stringify", s);
  }
  if (type == "object") return "an object";
  return type + " " + val::global("String")(v).as<std::string>();
}

// A request's options as JS gives them: an object whose keys are all optional. Each key given is
// checked and read into the engine's options; each key left out keeps the engine's default
// (tformer::TranslateOptions), which is thus stated once, in C++. Keys are the TranslateOptions
// fields in camelCase, with two renamed (beam, returnAlignment), plus returnScores (default
// true: results carry each hypothesis' score). Module.defaultOptions(): every key at its default.
struct RequestOptions : tformer::TranslateOptions {
  bool return_scores = true;
};

// Each key and the field it sets; the field's type says what the value must be: int an integer,
// size_t a non-negative integer, float a finite number, bool true or false.
using Field = std::variant<int RequestOptions::*, size_t RequestOptions::*, float RequestOptions::*, bool RequestOptions::*>;
struct Key {
  const char* name;
  Field field;
};
const Key kKeys[] = {
    {"beam", &RequestOptions::beam_size},
    {"nbest", &RequestOptions::nbest},
    {"lengthPenalty", &RequestOptions::length_penalty},
    {"maxLengthRatio", &RequestOptions::max_length_ratio},
    {"maxLengthOffset", &RequestOptions::max_length_offset},
    {"maxLength", &RequestOptions::max_length},
    {"returnAlignment", &RequestOptions::return_alignment},
    {"returnScores", &RequestOptions::return_scores},
    {"splitSentences", &RequestOptions::split_sentences},
    {"maxBatchTokens", &RequestOptions::max_batch_tokens},
    {"maxInputChars", &RequestOptions::max_input_chars},
    {"maxSentenceTokens", &RequestOptions::max_sentence_tokens},
    {"passthrough", &RequestOptions::passthrough},
    {"repetitionGuard", &RequestOptions::repetition_guard},
    {"html", &RequestOptions::html},
    {"htmlTranslateCode", &RequestOptions::html_translate_code},
    {"shortlist", &RequestOptions::shortlist},
};

[[noreturn]] void refuse(const char* key, const char* must, const val& got) {
  throw tformer::Error(tformer::ErrorCode::kInvalidArgument, tformer::Phase::kRequest,
              std::string("option '") + key + "' must be " + must + " (got " + describe(got) + ")");
}

double number_of(const char* key, const val& v, const char* must) {
  if (type_of(v) != "number") refuse(key, must, v);
  const double x = v.as<double>();
  if (!std::isfinite(x)) refuse(key, must, v);
  return x;
}

void read(const char* key, const val& v, RequestOptions& o, int RequestOptions::*field) {
  const double x = number_of(key, v, "an integer");
  if (x != std::floor(x) || x < -2147483648.0 || x > 2147483647.0) refuse(key, "an integer", v);
  o.*field = int(x);
}

void read(const char* key, const val& v, RequestOptions& o, size_t RequestOptions::*field) {
  const double x = number_of(key, v, "a non-negative integer");
  if (x != std::floor(x) || x < 0 || x > double(std::numeric_limits<size_t>::max())) refuse(key, "a non-negative integer", v);
  o.*field = size_t(x);
}

void read(const char* key, const val& v, RequestOptions& o, float RequestOptions::*field) {
  o.*field = float(number_of(key, v, "a number"));
}

void read(const char* key, const val& v, RequestOptions& o, bool RequestOptions::*field) {
  if (type_of(v) != "boolean") refuse(key, "true or false", v);
  o.*field = v.as<bool>();
}

val value_of(const RequestOptions& o, const Field& field) {
  return std::visit(
      [&](auto member) {
        const auto x = o.*member;
        if constexpr (std::is_same_v<decltype(x), const bool>) return val(x);
        else return val(double(x));
      },
      field);
}

std::string key_list() {
  std::string list;
  for (const Key& k : kKeys) list += (list.empty() ? "" : ", ") + std::string(k.name);
  return list;
}

// Every key at its default: the engine's own TranslateOptions.
val default_options() {
  const RequestOptions defaults;
  val o = val::object();
  for (const Key& k : kKeys) o.set(k.name, value_of(defaults, k.field));
  return o;
}


// Throws a tformer::Error (kInvalidArgument) for a value of the wrong type or an unknown key; the
// ranges are the engine's to check (tformer::validate).
RequestOptions read_options(const val& options) {
  RequestOptions o;
  if (options.isUndefined() || options.isNull()) return o;
  if (!is_object(options))
    throw tformer::Error(tformer::ErrorCode::kInvalidArgument, tformer::Phase::kRequest, "options must be an object (got " + describe(options) + ")");
  const val keys = val::global("Object").call<val>("keys", options);
  const size_t n = keys["length"].as<size_t>();
  for (size_t i = 0; i < n; ++i) {
    const std::string name = keys[i].as<std::string>();
    const Key* key = nullptr;
    for (const Key& k : kKeys)
      if (name == k.name) key = &k;
    if (!key)
      throw tformer::Error(tformer::ErrorCode::kInvalidArgument, tformer::Phase::kRequest, "unknown option '" + name + "' (known: " + key_list() + ")");
    const val v = options[name];
    if (v.isUndefined()) continue;  // as if left out
    std::visit([&](auto member) { read(key->name, v, o, member); }, key->field);
  }
  return o;
}


// The engine's result of one input (tformer::Translation), the low-level API's shape: per sentence
// its best hypothesis, its pieces and tokens; score with returnScores, the flat alignment matrix
// with returnAlignment, the hypotheses with nbest > 1. (The npm package adds what its own API has
// on top: web/src/results.js.)
val to_js(const tformer::SentenceTranslation& s, const RequestOptions& o) {
  auto hypothesis = [&](const tformer::Hypothesis& h) {
    return object({{"text", val(h.text)}, {"tokens", int_array(h.tokens)}, {"score", when(o.return_scores, val(h.score))}});
  };
  const tformer::Hypothesis& best = s.hypotheses.at(0);
  return object({
      {"source", val(s.source)},
      {"text", val(best.text)},
      {"sourceTokens", int_array(s.source_tokens)},
      {"sourcePieces", string_array(s.source_pieces)},
      {"tokens", int_array(best.tokens)},
      {"targetPieces", string_array(s.target_pieces)},
      {"score", when(o.return_scores, val(best.score))},
      {"alignment", when(o.return_alignment, float_array(s.alignment))},
      {"nbest", when(o.nbest > 1, array_of(s.hypotheses, hypothesis))},
  });
}

val to_js(const tformer::Translation& t, const RequestOptions& o) {
  return object({{"text", val(t.text)},
                 {"sentences", array_of(t.sentences, [&](const tformer::SentenceTranslation& s) { return to_js(s, o); })}});
}

// One translation driven from JS: Module.TranslationSession, made by Translator.begin().
class JsSession {
 public:
  JsSession(std::unique_ptr<tformer::TranslationSession> session, const RequestOptions& options)
      : session_(std::move(session)), options_(options) {}

  // {kind: 'encode', batch, length, ids: Int32Array, lengths: Int32Array}
  // | {kind: 'project', rows, hidden: Float32Array [rows * dModel], candidates, cpuOnly} | {kind: 'done'}
  // and `completed` when sentences ended in this call (streaming): [{segment, paragraph, index,
  // separator, sentence}] (TranslationSession::take_completed; sentence as in results()).
  val next() {
    return or_js_error("next", [&] {
      using Need = tformer::TranslationSession::Need;
      const Need need = session_->next();
      const val completed = take_completed();
      const val ended = when(completed["length"].as<size_t>() > 0, completed);
      if (need == Need::kEncode) {
        const auto& r = session_->encode_request();
        return object({{"kind", val("encode")},
                       {"completed", ended},
                       {"batch", val(double(r.batch))},
                       {"length", val(double(r.length))},
                       {"ids", val(emscripten::typed_memory_view(r.ids.size(), r.ids.data()))},
                       {"lengths", val(emscripten::typed_memory_view(r.lengths.size(), r.lengths.data()))}});
      }
      if (need == Need::kProject) {
        size_t rows = 0;
        const float* hidden = session_->hidden(&rows);
        return object({{"kind", val("project")},
                       {"completed", ended},
                       {"rows", val(double(rows))},
                       {"candidates", val(double(session_->candidates_per_row()))},
                       // A shortlisted batch (TranslationSession::projects_on_cpu_only): only
                       // computeOnCpu() may answer.
                       {"cpuOnly", val(session_->projects_on_cpu_only())},
                       {"hidden", val(emscripten::typed_memory_view(rows * session_->d_model(), hidden))}});
      }
      return object({{"kind", val("done")}, {"completed", ended}});
    });
  }

  // states: Float32Array [batch * length * dModel]
  void provide_encoder_output(const val& states) {
    or_js_error("provideEncoderOutput", [&] {
      const size_t n = copy_in(tformer::Phase::kProvideEncoderOutput, states);
      session_->provide_encoder_output(buffer_.data(), n);
      return true;
    });
  }

  // logits: Float32Array [rows * vocabSize]
  void provide_logits(const val& logits) {
    or_js_error("provideLogits", [&] {
      const size_t n = copy_in(tformer::Phase::kProvideLogits, logits);
      session_->provide_logits(buffer_.data(), n);
      return true;
    });
  }

  // rows: Float32Array [rows * (3 + 2 * candidates)]: see TranslationSession::provide_candidates
  void provide_candidates(const val& rows) {
    or_js_error("provideCandidates", [&] {
      const size_t n = copy_in(tformer::Phase::kProvideCandidates, rows);
      session_->provide_candidates(buffer_.data(), n);
      return true;
    });
  }

  void compute_on_cpu() {
    or_js_error("computeOnCpu", [&] {
      session_->compute_on_cpu();
      return true;
    });
  }

  val results() {
    return or_js_error("results", [&] {
      return array_of(session_->results(),
                      [&](const tformer::Translation& t) { return to_js(t, options_); });
    });
  }

 private:
  // The sentences that ended in the last next() (TranslationSession::take_completed), made into
  // JS values before next() makes its views of wasm memory.
  val take_completed() {
    return array_of(session_->take_completed(), [&](const tformer::CompletedSentence& c) {
      return object({{"segment", val(double(c.segment))},
                     {"paragraph", val(double(c.paragraph))},
                     {"index", val(double(c.index))},
                     {"separator", val(c.separator)},
                     {"sentence", to_js(c.sentence, options_)}});
    });
  }
  // One copy from the JS array into wasm memory, refused (kInvalidValues, as the call) unless a
  // Float32Array.
  size_t copy_in(tformer::Phase call, const val& array) {
    if (!array.instanceof(val::global("Float32Array")))
      throw tformer::Error(tformer::ErrorCode::kInvalidValues, call, "takes a Float32Array");
    const size_t n = array["length"].as<size_t>();
    buffer_.resize(n);
    val(emscripten::typed_memory_view(n, buffer_.data())).call<void>("set", array);
    return n;
  }

  std::unique_ptr<tformer::TranslationSession> session_;
  RequestOptions options_;
  std::vector<float> buffer_;
};

class JsTranslator {
 public:
  // `bytes`: a Uint8Array (or anything with length and set()) holding a .tfm file. It is copied
  // once, straight into wasm memory, and that buffer is what the engine loads from.
  static JsTranslator* create(const val& bytes, int threads) {
    return or_js_error("new Translator", [&] {
      if (!bytes.instanceof(val::global("Uint8Array")))
        throw tformer::Error(tformer::ErrorCode::kInvalidArgument, tformer::Phase::kLoad,
                             "the model must be given as a Uint8Array holding a .tfm file");
      std::vector<uint8_t> buffer(bytes["length"].as<size_t>());
      val(emscripten::typed_memory_view(buffer.size(), buffer.data())).call<void>("set", bytes);
      tformer::TranslatorConfig config;
      config.threads = threads;
      return new JsTranslator(std::move(buffer), config);
    });
  }

  // options: an object of optional keys (read_options)
  val translate(const val& texts, const val& options) {
    return or_js_error("translate", [&] {
      const RequestOptions o = read_options(options);
      const auto results = translator_.translate(texts_of(texts), o);
      return array_of(results, [&](const tformer::Translation& t) { return to_js(t, o); });
    });
  }

  std::unique_ptr<JsSession> begin(const val& texts, const val& options) {
    return or_js_error("begin", [&] {
      const RequestOptions o = read_options(options);
      return std::make_unique<JsSession>(translator_.begin(texts_of(texts), o), o);
    });
  }

  // A weight tensor as a Float32Array: a view of the model file in wasm memory when the file
  // stores it as f32, else a converted copy (f16 widened, int8 dequantised by the engine).
  val tensor_view(const std::string& name) {
    return or_js_error("tensorView", [&] {
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
    return or_js_error("plan", [&] {
      const tformer::ModelPlan p = translator_.plan();
      auto layer = [](const tformer::EncoderLayerPlan& l) {
        return object({{"norm", val(l.norm)},
                       {"rawSelfKv", val(l.raw_self_kv)},
                       {"qkv", linear_plan(l.qkv)},
                       {"q", linear_plan(l.q)},
                       {"kv", linear_plan(l.kv)},
                       {"o", linear_plan(l.o)},
                       {"selfAttentionNorm", norm_plan(l.self_attention_norm)},
                       {"ffnW1", linear_plan(l.ffn_w1)},
                       {"ffnW2", linear_plan(l.ffn_w2)},
                       {"activation", val(l.activation)},
                       {"ffnNorm", norm_plan(l.ffn_norm)}});
      };
      return object({{"dModel", val(p.d_model)},
                     {"heads", val(p.heads)},
                     {"ffnDim", val(p.ffn_dim)},
                     {"sourceEmbedding", val(p.source_embedding)},
                     {"embeddingScale", val(p.embedding_scale)},
                     {"encoderLayers", array_of(p.encoder_layers, layer)},
                     {"encoderFinalNorm", norm_plan(p.encoder_final_norm)},
                     {"output", linear_plan(p.output)}});
    });
  }

  // The model (config and metadata as the engine reads them, sizes, tensors) and how it runs:
  // threads, and `kernels`, the engine's kernel library ('xnnpack'; the C++ Backend). `backend`
  // is kept as a deprecated alias of `kernels`: in the npm package "backend" names where a
  // translation runs ('wasm' or 'webgpu').
  val info() const {
    return or_js_error("info", [&] {
      const tformer::ModelInfo& i = translator_.info();
      const val json = val::global("JSON");
      auto tensor = [](const tformer::TensorInfo& t) {
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
                     {"kernels", val(translator_.backend_name())},
                     {"backend", val(translator_.backend_name())},  // deprecated: the old name of kernels
                     {"threads", val(translator_.threads())},
                     {"tensors", array_of(i.tensors, tensor)}});
    });
  }

 private:
  JsTranslator(std::vector<uint8_t> bytes, const tformer::TranslatorConfig& config)
      : translator_(std::move(bytes), config) {}

  // A product or a norm of the plan; null where the model has none.
  static val linear_plan(const tformer::LinearPlan& p) {
    if (p.weights.empty()) return val::null();
    return object({{"weights", string_array(p.weights)},
                   {"biases", string_array(p.biases)},
                   {"in", val(double(p.in))},
                   {"out", val(double(p.out))}});
  }
  static val norm_plan(const tformer::NormPlan& p) {
    if (p.weight.empty()) return val::null();
    return object({{"weight", val(p.weight)}, {"bias", val(p.bias)}, {"eps", val(p.eps)}});
  }

  // A string or an array of strings, checked (the errors are named by the call: or_js_error).
  static std::vector<std::string> texts_of(const val& texts) {
    std::vector<std::string> inputs;
    const bool single = texts.typeOf().as<std::string>() == "string";
    if (single) {
      inputs.push_back(texts.as<std::string>());
    } else {
      if (!val::global("Array").call<bool>("isArray", texts))
        throw tformer::Error(tformer::ErrorCode::kInvalidArgument, tformer::Phase::kRequest, "takes a string or an array of strings");
      const size_t n = texts["length"].as<size_t>();
      for (size_t i = 0; i < n; ++i) {
        const val item = texts[i];
        if (item.typeOf().as<std::string>() != "string")
          throw tformer::Error(tformer::ErrorCode::kInvalidArgument, tformer::Phase::kRequest,
                               "item " + std::to_string(i) + " is not a string");
        inputs.push_back(item.as<std::string>());
      }
    }
    for (size_t i = 0; i < inputs.size(); ++i) check_surrogates(single ? texts : val(texts[i]), i);
    return inputs;
  }

  tformer::Translator translator_;
};

// A JS argument of the wrong kind (the HTML and import calls below).
tformer::Error invalid_argument(const std::string& detail, tformer::Phase phase = tformer::Phase::kRequest) {
  return tformer::Error(tformer::ErrorCode::kInvalidArgument, phase, detail);
}

// The HTML projection on its own (tformer/html.h), for translations made elsewhere and for the
// tests' table (tests/fixtures/html/cases.json):
//   Module.htmlBlockTexts(html, translateCode) -> [string]: the texts of the fragment's blocks
//   Module.projectHtml(html, [[{source, target, alignment?: [int]}, ...], ...], translateCode)
//     -> the fragment with each block's sentences replaced by their translations

val html_block_texts(const std::string& html, bool translate_code) {
  return or_js_error("htmlBlockTexts", [&] { return string_array(tformer::html_block_texts(html, translate_code)); });
}

std::string project_html(const std::string& html, const val& blocks, bool translate_code) {
  return or_js_error("projectHtml", [&] {
    const val is_array = val::global("Array")["isArray"];
    if (!is_array(blocks).as<bool>()) throw invalid_argument("blocks must be an array of arrays of sentences");
    std::vector<std::vector<tformer::HtmlSentenceTranslation>> list(blocks["length"].as<size_t>());
    for (size_t b = 0; b < list.size(); ++b) {
      const val block = blocks[b];
      if (!is_array(block).as<bool>()) throw invalid_argument("block " + std::to_string(b) + " is not an array");
      for (size_t i = 0; i < block["length"].as<size_t>(); ++i) {
        const val s = block[i];
        const std::string where = "block " + std::to_string(b) + ", sentence " + std::to_string(i);
        if (s.typeOf().as<std::string>() != "object" || s.isNull() || s["source"].typeOf().as<std::string>() != "string" ||
            s["target"].typeOf().as<std::string>() != "string")
          throw invalid_argument(where + " is not a {source: string, target: string} object");
        tformer::HtmlSentenceTranslation h{s["source"].as<std::string>(), s["target"].as<std::string>(), {}};
        const val a = s["alignment"];
        if (!a.isUndefined()) {
          if (!is_array(a).as<bool>()) throw invalid_argument(where + ": alignment must be an array of integers");
          for (size_t t = 0; t < a["length"].as<size_t>(); ++t) {
            if (!val::global("Number")["isInteger"](a[t]).as<bool>())
              throw invalid_argument(where + ": alignment must be an array of integers");
            h.alignment.push_back(a[t].as<int>());
          }
        }
        list[b].push_back(std::move(h));
      }
    }
    return tformer::project_html(html, list, translate_code);
  });
}

// The engine's per-phase timers (tformer/profile.h): {name: ms} since the last take.
val profile_take() {
  val out = val::object();
  for (const tformer::profile::PhaseTime& p : tformer::profile::take()) out.set(p.name, val(p.ms));
  return out;
}

// The engine's bounds that the npm package checks up front (web/src/options.js), read from here so
// that they are written once, in C++.
val limits() { return object({{"maxBeam", val(tformer::kMaxBeamSize)}, {"maxThreads", val(tformer::kMaxThreads)}}); }

// A Marian model folder (Firefox Translations, OPUS-MT) -> a .tfm image (tformer/marian.h):
//   Module.importMarian([{name: 'model.deen.intgemm.alphas.bin', bytes: Uint8Array}, ...],
//                       {weights, model, vocabs, spms, config, maxPositions, name})   // all optional
//   -> {tfm: Uint8Array, name, modelFile, summary: object, warnings: [string]}
// The .tfm is what `new Translator(tfm, threads)` then loads; a .gz file is decompressed by the
// importer (the npm package decompresses in JS first).
val import_marian(const val& files, const val& options) {
  return or_js_error("importMarian", [&] {
    if (!val::global("Array").call<bool>("isArray", files))
      throw invalid_argument("takes an array of {name, bytes} files", tformer::Phase::kImport);
    std::vector<tformer::MarianFile> list;
    const size_t n = files["length"].as<size_t>();
    for (size_t i = 0; i < n; ++i) {
      const val f = files[i];
      if (f.typeOf().as<std::string>() != "object" || f.isNull() || f["name"].typeOf().as<std::string>() != "string" ||
          !f["bytes"].instanceof(val::global("Uint8Array")))
        throw invalid_argument("file " + std::to_string(i) + " is not a {name: string, bytes: Uint8Array} object", tformer::Phase::kImport);
      tformer::MarianFile file{f["name"].as<std::string>(), std::vector<uint8_t>(f["bytes"]["length"].as<size_t>())};
      val(emscripten::typed_memory_view(file.bytes.size(), file.bytes.data())).call<void>("set", f["bytes"]);
      list.push_back(std::move(file));
    }
    tformer::MarianImportOptions o;
    const bool given = !options.isUndefined() && !options.isNull();
    auto text = [&](const char* key, std::string& into) {
      if (!given || options[key].isUndefined()) return;
      if (options[key].typeOf().as<std::string>() != "string") throw invalid_argument(std::string("option '") + key + "' must be a string", tformer::Phase::kImport);
      into = options[key].as<std::string>();
    };
    auto texts = [&](const char* key, std::vector<std::string>& into) {
      if (!given || options[key].isUndefined()) return;
      const val v = options[key];
      if (!val::global("Array").call<bool>("isArray", v)) throw invalid_argument(std::string("option '") + key + "' must be an array of strings", tformer::Phase::kImport);
      for (size_t i = 0; i < v["length"].as<size_t>(); ++i) {
        if (val(v[i]).typeOf().as<std::string>() != "string")
          throw invalid_argument(std::string("option '") + key + "' must be an array of strings", tformer::Phase::kImport);
        into.push_back(v[i].as<std::string>());
      }
    };
    text("weights", o.weights);
    text("model", o.model);
    texts("vocabs", o.vocabs);
    texts("spms", o.spms);
    text("config", o.config);
    text("name", o.name);
    if (given && !options["maxPositions"].isUndefined()) {
      if (options["maxPositions"].typeOf().as<std::string>() != "number") throw invalid_argument("option 'maxPositions' must be a number", tformer::Phase::kImport);
      o.max_positions = options["maxPositions"].as<int>();
    }
    tformer::MarianImport m = tformer::import_marian(list, o);
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

EMSCRIPTEN_BINDINGS(tformer) {
  emscripten::function("defaultOptions", &default_options);
  emscripten::function("limits", &limits);
  emscripten::function("profileEnable", &tformer::profile::enable);
  emscripten::function("profileTake", &profile_take);
  emscripten::function("htmlBlockTexts", &html_block_texts);
  emscripten::function("projectHtml", &project_html);
  emscripten::function("importMarian", &import_marian);
  emscripten::class_<JsTranslator>("Translator")
      .constructor(&JsTranslator::create, emscripten::allow_raw_pointers())
      .function("translate", &JsTranslator::translate)
      .function("begin", &JsTranslator::begin)
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
