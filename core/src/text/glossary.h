// Glossary and do-not-translate terms (TranslateOptions::glossary): where a glossary's source term
// stands in a sentence, the translation says the user's target term, or, for an entry without a
// target, the term as it is written in the sentence.
//
// Where this happens: a text stage beside passthrough (text/passthrough.h), not a rule of the
// search (decoding/logits_processor.h). The model translates the whole sentence, the term
// included: taking a noun out of a sentence, as passthrough takes out numbers and emoji, leaves
// the model a sentence with a hole in its grammar ("Die ___ tagt heute"). Forcing the term's
// target pieces during the search would need to know, at each step, whether the model is at the
// term now, which the alignment says only of the step just taken, and would force pieces the model
// may never reach. After the search, the model's alignment head says which target words
// translated the term: those are replaced by the wanted form (put_terms). The search and its
// scores are untouched; a translation that already says the wanted term is left as it is.
//
// Matching (Glossary::find): on whole words (the characters on either side of a match are not
// letters or digits, where the term itself begins or ends with one), per entry case-sensitive or
// not (a simple one-to-one case folding of the Latin, Greek, Cyrillic and Armenian letters; "ß"
// does not match "SS"), longest match first: of overlapping matches the longest is taken, then
// the longest of the rest that overlap nothing taken, and so on (equal lengths: the leftmost).
//
// Limits: the wanted form is put in as given, not inflected ("Bundestag" for "des Bundestages"
// replaces "Bundestag's" by "Bundestag"), and it lands where the alignment says the model put the
// term's translation; where no target word aligns to the term, it is put after the word that
// aligns to the source word before it. A term that passthrough takes out (a URL, an e-mail address,
// a code such as a phone number) is not matched: passthrough keeps it as written. A term with a
// number in it is matched as any other, and its numbers are the term's: passthrough does not put
// them back when its wanted form leaves them out.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "text/annotated_text.h"
#include "tformer/options.h"

namespace tformer {

// What is wrong with one entry ("source is empty", "target has a control character (U+0009) at
// byte 3"), or "" when nothing is.
std::string glossary_entry_problem(const GlossaryEntry& entry);

// What is wrong with a glossary, or "": more than kMaxGlossaryEntries entries, or the first bad
// entry, or a source given twice, each entry named by `name(i)` ("glossary[2]: source is empty").
std::string glossary_problem(const std::vector<GlossaryEntry>& entries, const std::function<std::string(size_t)>& name);

// Throws a tformer::Error (kInvalidOptions) with the glossary's problem, its entries named by
// index ("invalid translate options: glossary[2]: source is empty").
void validate_glossary(const std::vector<GlossaryEntry>& entries);

struct GlossaryMatch {
  ByteRange source;  // the matched bytes of the text
  size_t entry = 0;  // which entry
};

class Glossary {
 public:
  // The entries must be valid (validate_glossary).
  explicit Glossary(std::vector<GlossaryEntry> entries);

  bool empty() const { return entries_.empty(); }
  // The matches in `text`, in text order, none overlapping another.
  std::vector<GlossaryMatch> find(std::string_view text) const;
  // What the translation of a match in `text` should say: its entry's target, or the matched text.
  std::string wanted(const GlossaryMatch& match, std::string_view text) const;
  bool case_sensitive(size_t entry) const { return entries_[entry].case_sensitive; }

 private:
  // The sources, folded, as a trie: a text is matched from each of its code points by walking it,
  // so that the time spent does not grow with the number of entries.
  struct Node {
    std::unordered_map<char32_t, size_t> next;
    std::vector<size_t> entries;  // the entries whose source ends here
  };
  std::vector<GlossaryEntry> entries_;
  std::vector<std::u32string> sources_;  // per entry, its source's code points, folded if case-insensitive
  std::vector<Node> trie_;
};

// Puts the wanted forms of `matches` (found in `source_text`, the text the model was given) into a
// translation of it. `source_tokens`, `alignment`, `source_stride` and `source_offset` as for
// passthrough's restore(): for each source token its bytes of `source_text`; the alignment
// [target tokens (+ EOS) x source_stride] with source token i in column source_offset + i.
// Returns the translation with the terms put in; its tokens' ranges are kept in step: the first
// token of a replaced word stands for the wanted form, the others of it become empty, and a form
// put in between words belongs to the token before it.
AnnotatedSentence put_terms(const Glossary& glossary, std::string_view source_text, const std::vector<GlossaryMatch>& matches,
                            const std::vector<ByteRange>& source_tokens, const AnnotatedSentence& target,
                            const std::vector<float>& alignment, size_t source_stride, size_t source_offset);

// The glossary of a pivot translation's second step: the first step put each term's wanted form
// into the pivot language's text, which the second step keeps as it is. Each entry with a target
// becomes a do-not-translate entry of its target (where that has a letter or digit), once.
std::vector<GlossaryEntry> pivot_glossary(const std::vector<GlossaryEntry>& entries);

// Whole-word occurrences of `term` in `text` (the rules of Glossary::find), case-sensitive or not.
size_t count_term(std::string_view text, std::string_view term, bool case_sensitive);

}  // namespace tformer
