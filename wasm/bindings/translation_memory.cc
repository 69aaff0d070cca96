// Module.TranslationMemory: sentences translated before (tformer/translation_memory.h), shared by
// the translators that use it.
//   const memory = new Module.TranslationMemory({maxEntries, maxBytes});  // either left out: the engine's default
//   translator.useMemory(memory);            // and translator.useMemory(null)
//   memory.stats();                          // {entries, bytes, hits, misses}
//   memory.save();                           // Uint8Array: the memory's image
//   memory.load(uint8Array);                 // '' when read, else why it was refused (nothing added)
//   memory.clear(); memory.delete();
#include <emscripten/bind.h>

#include <memory>
#include <string>
#include <vector>

#include "error.h"
#include "js_values.h"
#include "tformer/translation_memory.h"

namespace tformer::wasm {
namespace {

size_t whole_positive(const char* what, const val& value, size_t fallback) {
  if (value.isUndefined()) return fallback;
  const double v = type_of(value) == "number" ? value.as<double>() : 0.0;
  if (!(v >= 1 && v <= 9007199254740991.0 && v == double(size_t(v))))
    throw Error(ErrorCode::kInvalidArgument, Phase::kRequest,
                std::string("a translation memory's ") + what + " must be a positive whole number (got " + describe(value) + ")");
  return size_t(v);
}

std::shared_ptr<TranslationMemory> create(const val& options) {
  return or_js_error("new TranslationMemory", [&] {
    TranslationMemoryLimits limits;
    if (!options.isUndefined() && !is_object(options))
      throw Error(ErrorCode::kInvalidArgument, Phase::kRequest, "a translation memory's options must be an object, not " + describe(options));
    const val none = val::undefined();
    limits.max_entries = whole_positive("maxEntries", options.isUndefined() ? none : options["maxEntries"], limits.max_entries);
    limits.max_bytes = whole_positive("maxBytes", options.isUndefined() ? none : options["maxBytes"], limits.max_bytes);
    return std::make_shared<TranslationMemory>(limits);
  });
}

val stats(const TranslationMemory& m) {
  const TranslationMemoryStats s = m.stats();
  return object({{"entries", val(double(s.entries))},
                 {"bytes", val(double(s.bytes))},
                 {"hits", val(double(s.hits))},
                 {"misses", val(double(s.misses))}});
}

val save(const TranslationMemory& m) {
  const std::string image = m.save();
  return val::global("Uint8Array").new_(
      val(emscripten::typed_memory_view(image.size(), reinterpret_cast<const uint8_t*>(image.data()))));
}

std::string load(TranslationMemory& m, const val& bytes) {
  return or_js_error("load", [&] {
    if (!bytes.instanceof(val::global("Uint8Array")))
      throw Error(ErrorCode::kInvalidArgument, Phase::kRequest, "a translation memory is loaded from a Uint8Array, not " + describe(bytes));
    std::string image(bytes["length"].as<size_t>(), '\0');
    val(emscripten::typed_memory_view(image.size(), reinterpret_cast<uint8_t*>(image.data()))).call<void>("set", bytes);
    return m.load(image);
  });
}

void clear(TranslationMemory& m) { m.clear(); }

}  // namespace

EMSCRIPTEN_BINDINGS(translation_memory) {
  emscripten::class_<TranslationMemory>("TranslationMemory")
      .smart_ptr_constructor("TranslationMemory", &create)
      .function("stats", &stats)
      .function("save", &save)
      .function("load", &load)
      .function("clear", &clear);
}

}  // namespace tformer::wasm
