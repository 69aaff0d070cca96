// Options of a translation request and of a translator instance, their limits, and the checks
// that enforce them (core/src/options.cc).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace tformer {

// The most hypotheses a beam may keep (beam_size, and so nbest). Stated once: the engine checks it
// and the npm package reads it from the engine (Module.limits()) to check options up front.
constexpr int kMaxBeamSize = 64;

// One term of a glossary (TranslateOptions::glossary): where `source` stands in a sentence as a
// whole word (or words), the translation says `target`; without a target the term is kept as it
// is written in the sentence (a do-not-translate term: brand names, product names, identifiers).
struct GlossaryEntry {
  std::string source;
  std::optional<std::string> target;
  bool case_sensitive = true;
};

// A glossary's bounds: so many entries at most, each source and target at most so many bytes.
constexpr size_t kMaxGlossaryEntries = 10000;
constexpr size_t kMaxGlossaryTermBytes = 1000;

struct TranslateOptions {
  // 1 = greedy. Greedy by default, the choice of docs/BENCHMARKS.md ("Search settings"): beam 4
  // gives the shipped models about 1 BLEU more at about twice the time, which a person waiting
  // for one short text does not notice (the demo searches with beam 4 up to 600 characters) but a
  // page or a file does, and the engine's requests are those too (translatePage, the CLI).
  int beam_size = 1;
  int nbest = 1;                  // hypotheses kept per sentence (<= beam_size)
  // Hypotheses ranked by score / length^length_penalty. 1.0, the reference's rule (with beam 4,
  // 1.4 scored up to 0.6 BLEU higher on the shipped models, 0.25 on average: docs/BENCHMARKS.md).
  float length_penalty = 1.0f;
  float max_length_ratio = 2.0f;  // target length limit: ratio * source tokens + offset ...
  int max_length_offset = 0;
  int max_length = 0;             // ... and, when > 0, at most this many target tokens
  bool return_alignment = false;  // cross-attention weights of the last decoder layer
  bool split_sentences = true;    // paragraphs are split into sentences before translating
  size_t max_batch_tokens = 4096;  // source tokens (padded) per encoder batch
  // Limits, so that one huge input cannot hold the engine for minutes. An input text longer than
  // max_input_chars characters (Unicode code points) is refused with an error; 0 = no limit.
  size_t max_input_chars = 100000;
  // A sentence longer than this many source tokens is cut into consecutive pieces of at most this
  // many tokens, each translated on its own; 0 = as many as the model's positions allow
  // (max_positions minus BOS/EOS), which is also the most a value here can give.
  int max_sentence_tokens = 0;
  // What the model cannot translate passes through: URLs, e-mail addresses, emoji and symbols,
  // codes such as phone numbers, and characters outside its vocabulary are taken out of the source
  // and put back into the translation by the alignment; numbers stay for the model, and one the
  // translation lost is put back into it by the alignment (core/src/text/passthrough.h). On by
  // default: nobody wants mangled numbers or links ("0171 2345678" -> "0174545678"), and it costs
  // no BLEU (docs/BENCHMARKS.md, "Passthrough"). It changes the model's input, so the parity tests,
  // which compare the plain model with its reference implementations, turn it off.
  bool passthrough = true;
  // Stops decoding loops ("then then, then, then"): a token that would repeat the last token a
  // fourth time, or a group of 2-4 tokens a third time, back to back, is not taken
  // (core/src/decoding/rules.h). On by default (it moves BLEU by 0.03 at most on the test sets,
  // and only stops loops); off for the parity tests, as passthrough.
  bool repetition_guard = true;
  // Each input text is a fragment of HTML (core/src/html/html.h): its markup is kept, its text
  // translated, inline elements (a, b, em...) placed on the translated words by the alignment,
  // which the engine then computes whether or not return_alignment asks for it. The result's
  // text is the translated HTML.
  bool html = false;
  // With html: code, pre, kbd and samp elements are translated too. By default they are kept
  // as they are, as script, style and translate="no" subtrees always are.
  bool html_translate_code = false;
  // Models with a lexical shortlist (Firefox Translations' lex.*.s2t.bin, carried in the .tfm)
  // score each sentence's shortlisted target words only, as Bergamot does: the output projection
  // shrinks from the whole vocabulary to those rows. false: every word is scored. On by default:
  // faster, and as good BLEU on average with the shipped models (docs/BENCHMARKS.md, "Search
  // settings").
  bool shortlist = true;
  // Terms to translate the user's way, or to keep (core/src/text/glossary.h). Empty: none.
  std::vector<GlossaryEntry> glossary;
  // Each sentence's best translation gets a confidence per word and a score
  // (SentenceTranslation::confidence, tformer/confidence.h). It does not change the translation.
  // With html the words' bytes are those of the sentence's plain translation, not of the HTML.
  bool confidence = false;
};

// The most threads a translator's thread pool may have.
constexpr int kMaxThreads = 256;

// The kernel library the matrix products run on: XNNPACK, or plain C++ loops (the yardstick the
// tests hold XNNPACK to). Not to be confused with where a translation runs (wasm or WebGPU: the
// npm package's "backend").
enum class KernelLibrary { kXnnpack, kReference };

struct TranslatorConfig {
  int threads = 1;  // XNNPACK thread pool size (1 = no extra threads, at most kMaxThreads)
  KernelLibrary kernels = KernelLibrary::kXnnpack;
};

// Throw tformer::Error naming the first value out of its range ("invalid translate options: beam
// size must be between 1 and 64 (got 0)"; "threads must be between 1 and 256 (got 0)").
// Translator::begin() and translate() check their options, and the constructors their config,
// with these.
void validate(const TranslateOptions& options);
void validate(const TranslatorConfig& config);

// Every option that changes what a sentence's translation is, written out as text: the part of the
// translation memory's key (tformer/translation_memory.h) that the options give. Options that only
// change how the work is done (max_batch_tokens, max_input_chars) are left out, so that they
// share entries. An option added to TranslateOptions that changes a translation must be added here.
std::string memory_fingerprint(const TranslateOptions& options);

}  // namespace tformer
