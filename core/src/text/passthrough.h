// Pass-through of what a translation model cannot translate: numbers, URLs, e-mail addresses,
// emoji and other symbols, and characters outside the model's vocabulary. Small models drop or
// invent them ("Das Wetter ist ☀️ heute." -> "The weather is today.", "12,50 €" -> "€.00.00").
//
// How: protect() takes such spans out of a sentence before it is tokenized (the model translates
// the rest, which it can), and restore() puts each span back into the translation, exactly as it
// went in, at a word boundary: after the target word that attended most to the source piece
// before the span (before the word of the first piece when the span opened the sentence), when
// that attention is clear (a weight of 0.5 or more in the model's alignment: its alignment head,
// which models trained with guided alignment name in their metadata, as the shipped ones do, else
// the mean of the last cross-attention layer's heads); otherwise at the same relative place in the
// translation. Models without an alignment head have attention close to uniform, so with them the
// relative place decides: "Das Wetter ist ☀️ heute." -> "The weather is ☀️ today.", "Ich habe 3
// Katzen und 2 Hunde." -> "I have 3 dogs and 2 cats." (the model's order). A span that closes the
// sentence (only closing punctuation after it) closes the translation, before its closing
// punctuation, whatever the alignment says: "Es kostet nichts, gefunden zu werden 😀." -> "It
// costs nothing to be found 😀." (the word before it, "werden", aligns with "be").
// TranslateOptions::passthrough switches it (on by default; the parity tests, which compare the
// plain model with its reference implementations, turn it off).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "text/annotated_text.h"

namespace tformer {

struct ProtectedSpan {
  std::string text;          // as it was in the sentence
  size_t at = 0;             // byte offset in the cleaned sentence where it stood
  size_t from = 0;           // byte offset in the sentence where it began
  bool space_before = false;  // whitespace (or the sentence start) before it in the sentence
  bool space_after = false;   // whitespace after it
};

struct ProtectedSentence {
  std::string text;                  // the sentence without its spans (what the model translates)
  std::vector<ProtectedSpan> spans;  // in order
  std::vector<size_t> origin;        // with spans: for each byte of `text`, the byte of the sentence it is
  // The numbers left in `text` for the model (number_runs()), which restore() checks for in the
  // translation.
  std::vector<ByteRange> numbers;
  // Nothing translatable is left (the sentence was only numbers, symbols, ...): it is copied.
  bool verbatim = false;
};

// The numbers of a text: runs of ASCII digits with single '.', ',' or ':' between digits ("1.000",
// "3,5", "18:17", "19" of "19." and of "COVID-19"), and thousands grouped by spaces or apostrophes
// ("25 000", "95'000"), as byte ranges.
std::vector<ByteRange> number_runs(std::string_view text);

// Whether `written`, a number of a translation, is `number` of the source as a language may write
// it: the same, '.' and ',' exchanged ("1.000" and "1,000", "3,5" and "3.5"), or the same thousands
// grouped otherwise or not at all ("25 000", "25.000", "25,000", "25000").
bool same_number(std::string_view number, std::string_view written);

// How a language writes a number's fraction: its decimal mark, '.' (en, zh, ja, ...) or ',' (de, fr,
// es, ru, ...), the other of the two grouping thousands; 0 for a language not listed. `language`:
// a BCP 47 tag or its primary subtag ("de", "en-US").
char decimal_mark(std::string_view language);

// `number` as written with decimal mark `from`, written with `to` instead: a number of thousands
// groups, a decimal fraction or both ("1.000" -> "1,000", "3,5" -> "3.5", "1.234,5" -> "1,234.5"
// from ',' to '.'). Anything else (dates "04.05.2018", versions "3.4.2", times) as it is, and so is
// every number where `from` or `to` is 0 or they are the same.
std::string with_decimal_mark(std::string_view number, char from, char to);

// A change to a sentence: its bytes [begin, end) replaced by `text` (begin == end: put in there).
struct TextEdit {
  size_t begin, end;
  std::string text;
};
// The sentence with `edits` (ordered by begin, not overlapping) made, its tokens' ranges kept in
// step: a token inside a replaced part ends where the replacement does, text put in at a token's
// boundary belongs to the token before it (to the first token, at the very start).
AnnotatedSentence apply_edits(const AnnotatedSentence& sentence, const std::vector<TextEdit>& edits);

// `unknown(code point)` says whether the model's vocabulary lacks a character (it would become
// <unk>); letters and punctuation it has stay for the model.
ProtectedSentence protect(std::string_view sentence, const std::function<bool(char32_t)>& unknown);

// Puts the spans back into a translation. `source_tokens`: for each token the model saw of the
// cleaned sentence (without BOS/EOS), the bytes of `sentence.text` it stands for; `target`: the
// translation (without EOS) and the bytes of it each of its tokens stands for (text/annotated_text.h);
// `alignment`: row-major [target tokens (+ EOS row ignored) x source_stride] weights with source
// column `source_offset` + i for source token i (BOS shifts it by one). Empty alignment: by
// relative position.
// `put_back`, when given, gets what was put back, in the order of the result (a verbatim copy: the
// whole sentence, as one).
struct PutBack {
  size_t position = 0;  // where in the model's translation it went: its bytes from there on follow it
  size_t length = 0;    // the bytes added there (the span, with the space before or after it)
  ByteRange text;       // the span's own bytes in the result
  size_t from = 0;      // the byte of the sentence where the span began
};
// The numbers of `sentence.numbers` that a translation of `sentence.text` lost, put back as the
// source writes them, so that each number of the source stands in the translation (as
// same_number() accepts it). A number the model wrote otherwise ("0.4.05.2018" for "04.05.2018")
// is replaced where the alignment says it translated the source's ("A78" for "A7"), and a number it
// left out is put in at the place restore() would give a span there. What is put back is written
// with the target language's decimal mark (`marks`: the source's, then the target's; with_decimal_mark).
// `source_tokens`, the alignment and the offsets as for restore().
AnnotatedSentence repair_numbers(const ProtectedSentence& sentence, const std::vector<ByteRange>& source_tokens,
                                 const AnnotatedSentence& target, const std::vector<float>& alignment, size_t source_stride,
                                 size_t source_offset, std::pair<char, char> marks = {0, 0});

std::string restore(const ProtectedSentence& sentence, const std::vector<ByteRange>& source_tokens,
                    const AnnotatedSentence& target, const std::vector<float>& alignment, size_t source_stride,
                    size_t source_offset, std::vector<PutBack>* put_back = nullptr);

}  // namespace tformer
