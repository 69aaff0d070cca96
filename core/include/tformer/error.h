// Errors of the engine: one exception type that says what is wrong (a code a program can act
// on), where the engine was (the phase of its work) and the detail, in words that name no
// caller's API. Those who face users word it for them: the CLI names input lines and flags
// (core/cli/tformer.cc), the wasm bindings name their JS calls (wasm/bindings/error.cc). what() is
// the wording for C++ callers, in the names of this API ("input text 2 is not valid UTF-8: ...",
// "provide_logits() needs a projection request, but an encode request is pending").
#pragma once

#include <cstddef>
#include <exception>
#include <optional>
#include <string>
#include <vector>

namespace tformer {

enum class ErrorCode {
  kInvalidModel,     // a model the engine cannot read or run: the file, its config, its vocabulary, a Marian folder
  kInvalidOptions,   // a translate option or the translator's config out of its range
  kInvalidArgument,  // an argument of the wrong kind (the bindings' checks of what JS passes)
  kInvalidText,      // an input text that is not valid UTF-8 (or Unicode), or not HTML the engine can read
  kTextTooLong,      // an input text longer than TranslateOptions::max_input_chars
  kWrongState,       // a session call that does not fit the session's state (Error::calls_that_fit says what does)
  kInvalidValues,    // values given to a session: a wrong count, NaN, token ids outside the vocabulary
  kResources,        // threads or memory the engine could not have
  kInternal,         // anything else: a library's failure, or a bug
  // Codes added later keep the numbers above as they were.
  kInvalidCatalog,   // a model catalogue not in Firefox's format, or without models for the pair asked for
  kDownload,         // a download that failed or is not what its catalogue record says (size, sha256, zstd)
};

// The step of the engine's work that refused.
enum class Phase {
  kLoad,       // reading a model into a Translator (its constructors)
  kImport,     // converting a Marian model (tformer/marian.h)
  kRequest,    // checking a request: its options and texts (Translator::translate and begin)
  kTranslate,  // translating (Translator::translate, once the request was accepted)
  // The calls of a TranslationSession (tformer/translator.h), one phase each:
  kNext,
  kEncodeRequest,
  kProvideEncoderOutput,
  kHidden,
  kProvideLogits,
  kProvideCandidates,
  kCandidatesPerRow,
  kProjectsOnCpuOnly,
  kComputeOnCpu,
  kResults,
  // Phases added later keep the numbers above as they were.
  kCatalog,    // reading a model catalogue and choosing a pair's files (tformer/catalog.h)
  kDownload,   // fetching, checking and unpacking a catalogue's files
  kDetect,     // detecting a text's languages (tformer/language_detector.h)
};

class Error : public std::exception {
 public:
  // An error whose code and phase are left to the boundary that lets it out of the engine (in()).
  explicit Error(std::string detail);
  Error(ErrorCode code, Phase phase, std::string detail);

  // An error about one input text of a request (`input` from 0). `detail` reads after the text's
  // name: "is not valid UTF-8: byte 0xC3 at offset 4".
  static Error about_input(ErrorCode code, size_t input, std::string detail);
  // A session call that does not fit the session's state. `detail` reads after the call's name
  // ("needs an encode request, but no request is pending"); `fit`: the calls that would.
  static Error wrong_state(Phase call, std::string detail, std::vector<Phase> fit = {});

  ErrorCode code() const { return code_.value_or(ErrorCode::kInternal); }
  Phase phase() const { return phase_.value_or(Phase::kTranslate); }
  const std::string& detail() const { return detail_; }
  // The input text at fault, from 0; none when the error concerns no single text.
  std::optional<size_t> input() const { return input_; }
  // kWrongState: the session calls that fit the session's state now (none: no call can help).
  const std::vector<Phase>& calls_that_fit() const { return fit_; }

  // Fills in the code and the phase where the thrower left them open, and returns the error to
  // be thrown on: `catch (Error& e) { throw e.in(Phase::kLoad, ErrorCode::kInvalidModel); }`.
  Error& in(Phase phase, ErrorCode code);

  // The wording for C++ callers (see the top of this file).
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  void word();

  std::optional<ErrorCode> code_;
  std::optional<Phase> phase_;
  std::string detail_;
  std::optional<size_t> input_;
  std::vector<Phase> fit_;
  std::string message_;
};

// A stable name of each code ("invalid_model", "text_too_long", ...): what the CLI and the JS
// package give programs to act on.
const char* code_name(ErrorCode code);
// A stable name of each phase ("load", "request", "provide_logits", ...).
const char* phase_name(Phase phase);
// Whether the phase is one call of a TranslationSession.
bool is_session_call(Phase phase);
// "A, B or C": a list of names as the wordings join them.
std::string join_alternatives(const std::vector<std::string>& names);

}  // namespace tformer
