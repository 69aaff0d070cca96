#include "text/glossary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <map>

#include "text/attended_tokens.h"
#include "text/passthrough.h"
#include "tformer/error.h"
#include "util/utf8.h"

namespace tformer {
namespace {

constexpr size_t kNone = size_t(-1);

// Simple one-to-one case folding (Unicode's lower case) of the scripts whose letters have cases
// and whose words are separated by spaces: Latin (with Latin-1, Extended-A and the Vietnamese
// letters of Extended Additional), Greek, Cyrillic, Armenian, and the full-width Latin letters.
// ICU's folding would cover every script, at a cost of megabytes in the wasm build.
char32_t fold(char32_t c) {
  if (c < 0x80) return c >= 'A' && c <= 'Z' ? c + 32 : c;
  if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 32;
  if (c < 0x100) return c;
  if (c <= 0x17F) {
    if (c == 0x130) return 'i';
    if (c == 0x178) return 0xFF;
    if (c == 0x17F) return 's';
    if ((c < 0x138 || (c >= 0x14A && c < 0x178)) && c % 2 == 0) return c + 1;
    if (((c >= 0x139 && c < 0x149) || (c >= 0x179 && c < 0x17F)) && c % 2 == 1) return c + 1;
    return c;
  }
  if (c >= 0x386 && c <= 0x3A9) {
    if (c >= 0x391 && c != 0x3A2) return c + 32;
    if (c == 0x386) return 0x3AC;
    if (c >= 0x388 && c <= 0x38A) return c + 37;
    if (c == 0x38C) return 0x3CC;
    if (c == 0x38E || c == 0x38F) return c + 63;
    return c;
  }
  if (c == 0x3C2) return 0x3C3;  // final sigma
  if (c >= 0x400 && c <= 0x40F) return c + 80;
  if (c >= 0x410 && c <= 0x42F) return c + 32;
  if (((c >= 0x460 && c <= 0x481) || (c >= 0x48A && c <= 0x4BF) || (c >= 0x4D0 && c <= 0x52F)) && c % 2 == 0) return c + 1;
  if (c >= 0x531 && c <= 0x556) return c + 48;
  if (c == 0x1E9E) return 0xDF;
  if (((c >= 0x1E00 && c <= 0x1E95) || (c >= 0x1EA0 && c <= 0x1EFF)) && c % 2 == 0) return c + 1;
  if (c >= 0xFF21 && c <= 0xFF3A) return c + 32;
  return c;
}

// Letters, digits and marks (and "_", which joins the words of identifiers), as opposed to
// whitespace, punctuation and symbols: what a whole-word match may not have on either side.
bool is_word_char(char32_t c) {
  if (c < 0x80) return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
  if (c < 0xC0) return c == 0xAA || c == 0xB5 || c == 0xBA;
  if (c == 0xD7 || c == 0xF7) return false;
  if (c >= 0x2000 && c <= 0x2BFF) return false;  // spaces, punctuation, symbols, arrows, shapes
  if (c >= 0x3000 && c <= 0x303F) return false;  // CJK spaces and punctuation
  if (c >= 0xE000 && c <= 0xF8FF) return false;  // private use
  if (c >= 0xFE30 && c <= 0xFE6F) return false;  // CJK compatibility and small forms
  if ((c >= 0xFF00 && c <= 0xFF0F) || (c >= 0xFF1A && c <= 0xFF20) || (c >= 0xFF3B && c <= 0xFF40) || (c >= 0xFF5B && c <= 0xFF65))
    return false;  // full-width punctuation
  if (c >= 0x1F000 && c <= 0x1FAFF) return false;  // emoji and pictographs
  return true;
}

bool is_control(char32_t c) { return c < 0x20 || (c >= 0x7F && c <= 0x9F) || c == 0x2028 || c == 0x2029; }
bool is_space(char32_t c) { return c == ' ' || c == 0xA0 || (c >= 0x2000 && c <= 0x200A) || c == 0x202F || c == 0x205F || c == 0x3000; }

std::u32string code_points(std::string_view s, bool folded) {
  std::u32string out;
  for (const CodePoint& c : decode_code_points(s)) out += folded ? fold(c.value) : c.value;
  return out;
}

bool same_term(std::string_view a, std::string_view b, bool case_sensitive) {
  return case_sensitive ? a == b : code_points(a, true) == code_points(b, true);
}

// Whether `term` (code points, folded if not case-sensitive) stands in `text` from code point `i`
// as a whole word.
bool whole_word_at(const std::vector<CodePoint>& text, size_t i, const std::u32string& term, bool case_sensitive) {
  if (term.empty() || i + term.size() > text.size()) return false;
  for (size_t k = 0; k < term.size(); ++k) {
    const char32_t c = case_sensitive ? text[i + k].value : fold(text[i + k].value);
    if (c != term[k]) return false;
  }
  if (is_word_char(term.front()) && i > 0 && is_word_char(text[i - 1].value)) return false;
  const size_t after = i + term.size();
  if (is_word_char(term.back()) && after < text.size() && is_word_char(text[after].value)) return false;
  return true;
}

std::string code_point_name(char32_t c) {
  char name[16];
  std::snprintf(name, sizeof name, "U+%04X", unsigned(c));
  return name;
}

std::string term_problem(const char* what, const std::string& term) {
  const std::string w(what);
  if (term.empty()) return w + " is empty";
  if (term.size() > kMaxGlossaryTermBytes)
    return w + " is longer than " + std::to_string(kMaxGlossaryTermBytes) + " bytes (got " + std::to_string(term.size()) + ")";
  const size_t bad = find_invalid_utf8(term);
  if (bad != std::string::npos) {
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02X", unsigned(static_cast<unsigned char>(term[bad])));
    return w + " is not valid UTF-8: byte " + byte + " at offset " + std::to_string(bad);
  }
  const std::vector<CodePoint> cps = decode_code_points(term);
  bool word = false;
  for (const CodePoint& c : cps) {
    if (is_control(c.value))
      return w + " has a control character (" + code_point_name(c.value) + ") at byte " + std::to_string(c.begin);
    word = word || is_word_char(c.value);
  }
  if (is_space(cps.front().value) || is_space(cps.back().value)) return w + " begins or ends with whitespace";
  if (!word) return w + " has no letter or digit";
  return "";
}

}  // namespace

std::string glossary_entry_problem(const GlossaryEntry& entry) {
  std::string problem = term_problem("source", entry.source);
  if (problem.empty() && entry.target) {
    if (entry.target->empty()) return "target is empty (leave it out to keep the source as it is)";
    problem = term_problem("target", *entry.target);
    if (problem == "target has no letter or digit") problem.clear();  // "C++" -> "C#" is fine as a target
  }
  return problem;
}

std::string glossary_problem(const std::vector<GlossaryEntry>& entries, const std::function<std::string(size_t)>& name) {
  if (entries.size() > kMaxGlossaryEntries)
    return "the glossary has " + std::to_string(entries.size()) + " entries, at most " + std::to_string(kMaxGlossaryEntries) +
           " are allowed";
  // Each source (folded) and the entries that have it: one may not shadow another.
  std::map<std::u32string, std::vector<size_t>> seen;
  for (size_t i = 0; i < entries.size(); ++i) {
    const std::string problem = glossary_entry_problem(entries[i]);
    if (!problem.empty()) return name(i) + ": " + problem;
    std::vector<size_t>& same = seen[code_points(entries[i].source, true)];
    for (size_t j : same) {
      if (entries[i].case_sensitive && entries[j].case_sensitive && entries[i].source != entries[j].source) continue;
      return name(i) + ": source \"" + entries[i].source + "\" is given already by " + name(j);
    }
    same.push_back(i);
  }
  return "";
}

void validate_glossary(const std::vector<GlossaryEntry>& entries) {
  const std::string problem = glossary_problem(entries, [](size_t i) { return "glossary[" + std::to_string(i) + "]"; });
  if (!problem.empty()) throw Error(ErrorCode::kInvalidOptions, Phase::kRequest, "invalid translate options: " + problem);
}

Glossary::Glossary(std::vector<GlossaryEntry> entries) : entries_(std::move(entries)), trie_(1) {
  for (size_t e = 0; e < entries_.size(); ++e) {
    sources_.push_back(code_points(entries_[e].source, !entries_[e].case_sensitive));
    size_t node = 0;
    for (const char32_t c : code_points(entries_[e].source, true)) {
      auto [at, fresh] = trie_[node].next.try_emplace(c, trie_.size());
      node = at->second;
      if (fresh) trie_.emplace_back();
    }
    trie_[node].entries.push_back(e);
  }
}

std::vector<GlossaryMatch> Glossary::find(std::string_view text) const {
  const std::vector<CodePoint> cps = decode_code_points(text);
  std::vector<GlossaryMatch> candidates;
  for (size_t i = 0; i < cps.size(); ++i) {
    size_t node = 0;
    for (size_t k = i; k < cps.size(); ++k) {
      auto next = trie_[node].next.find(fold(cps[k].value));
      if (next == trie_[node].next.end()) break;
      node = next->second;
      for (size_t e : trie_[node].entries)
        if (whole_word_at(cps, i, sources_[e], entries_[e].case_sensitive)) candidates.push_back({{cps[i].begin, cps[k].end}, e});
    }
  }
  // Longest first; of equal lengths the leftmost; each only where it overlaps none taken before.
  std::stable_sort(candidates.begin(), candidates.end(), [](const GlossaryMatch& a, const GlossaryMatch& b) {
    return a.source.size() != b.source.size() ? a.source.size() > b.source.size() : a.source.begin < b.source.begin;
  });
  std::map<size_t, GlossaryMatch> taken;  // by first byte; none overlaps another
  for (const GlossaryMatch& c : candidates) {
    auto after = taken.lower_bound(c.source.begin);
    if (after != taken.end() && after->first < c.source.end) continue;
    if (after != taken.begin() && std::prev(after)->second.source.end > c.source.begin) continue;
    taken.emplace(c.source.begin, c);
  }
  std::vector<GlossaryMatch> out;
  for (const auto& [begin, m] : taken) out.push_back(m);
  return out;
}

std::string Glossary::wanted(const GlossaryMatch& match, std::string_view text) const {
  const GlossaryEntry& e = entries_[match.entry];
  return e.target ? *e.target : std::string(text.substr(match.source.begin, match.source.size()));
}

std::vector<GlossaryEntry> pivot_glossary(const std::vector<GlossaryEntry>& entries) {
  std::vector<GlossaryEntry> out;
  std::map<std::u32string, bool> seen;
  for (const GlossaryEntry& e : entries) {
    GlossaryEntry kept{e.target.value_or(e.source), std::nullopt, e.case_sensitive};
    if (!glossary_entry_problem(kept).empty() || !seen.emplace(code_points(kept.source, true), true).second) continue;
    out.push_back(std::move(kept));
  }
  return out;
}

namespace {

// The bytes of each whole-word occurrence of `term` in `text`.
std::vector<ByteRange> find_term(std::string_view text, std::string_view term, bool case_sensitive) {
  const std::vector<CodePoint> cps = decode_code_points(text);
  const std::u32string t = code_points(term, !case_sensitive);
  std::vector<ByteRange> out;
  for (size_t i = 0; i < cps.size(); ++i)
    if (whole_word_at(cps, i, t, case_sensitive)) {
      out.push_back({cps[i].begin, cps[i + t.size() - 1].end});
      i += t.size() - 1;
    }
  return out;
}

}  // namespace

size_t count_term(std::string_view text, std::string_view term, bool case_sensitive) {
  return find_term(text, term, case_sensitive).size();
}

namespace {

// A word of a translation: its tokens [first, last] and its bytes, the whitespace before it not
// counted. A token with a letter or digit after whitespace (SentencePiece's "▁") begins a word,
// one without continues the word before it; a token of punctuation belongs to no word.
struct Word {
  size_t first, last, begin, end;
};

std::vector<Word> words_of(const AnnotatedSentence& target, std::vector<size_t>& word_of) {
  std::vector<Word> words;
  word_of.assign(target.tokens.size(), kNone);
  bool open = false;
  for (size_t t = 0; t < target.tokens.size(); ++t) {
    const ByteRange& r = target.tokens[t];
    const std::vector<CodePoint> cps = decode_code_points(std::string_view(target.text).substr(r.begin, r.size()));
    if (cps.empty()) {  // one of the tokens of a character
      if (open) word_of[t] = words.size() - 1;
      continue;
    }
    const bool letters = std::any_of(cps.begin(), cps.end(), [](const CodePoint& c) { return is_word_char(c.value); });
    if (!letters) {
      open = false;
      continue;
    }
    if (!open || is_space(cps.front().value)) {
      size_t b = 0;
      while (b < cps.size() && is_space(cps[b].value)) ++b;
      words.push_back({t, t, r.begin + cps[b].begin, r.end});
      open = true;
    } else {
      words.back().last = t;
      words.back().end = r.end;
    }
    word_of[t] = words.size() - 1;
  }
  return words;
}

}  // namespace

AnnotatedSentence put_terms(const Glossary& glossary, std::string_view source_text, const std::vector<GlossaryMatch>& matches,
                            const std::vector<ByteRange>& source_tokens, const AnnotatedSentence& target,
                            const std::vector<float>& alignment, size_t source_stride, size_t source_offset) {
  if (matches.empty()) return target;
  const std::string& text = target.text;
  const size_t T = target.tokens.size(), S = source_tokens.size();
  const bool aligned = T > 0 && S > 0 && source_offset + S <= source_stride && alignment.size() >= T * source_stride;
  auto weight = [&](size_t t, size_t s) { return alignment[t * source_stride + source_offset + s]; };
  std::vector<size_t> word_of;
  const std::vector<Word> words = words_of(target, word_of);

  const std::vector<size_t> points = attended_source_tokens(alignment, source_stride, source_offset, S, T, kNone);
  // The target word that attends most to source token s (kNone without alignment).
  auto word_for = [&](size_t s) {
    if (!aligned || words.empty()) return kNone;
    size_t best = kNone;
    for (size_t t = 0; t < T; ++t)
      if (word_of[t] != kNone && (best == kNone || weight(t, s) > weight(best, s))) best = t;
    return best == kNone ? kNone : word_of[best];
  };

  // A term the translation already says as often as the source has it is left alone.
  const size_t M = matches.size();
  std::vector<std::string> wanted(M);
  for (size_t m = 0; m < M; ++m) wanted[m] = glossary.wanted(matches[m], source_text);
  std::vector<bool> settled(M, false);
  std::vector<bool> taken(words.size(), false);  // words that are a wanted form, or were replaced by one
  for (size_t m = 0; m < M; ++m) {
    if (settled[m]) continue;
    const bool cs = glossary.case_sensitive(matches[m].entry);
    std::vector<size_t> same;
    for (size_t n = m; n < M; ++n)
      if (!settled[n] && glossary.case_sensitive(matches[n].entry) == cs && same_term(wanted[n], wanted[m], cs)) same.push_back(n);
    const std::vector<ByteRange> there = find_term(text, wanted[m], cs);
    if (there.size() >= same.size()) {
      for (size_t n : same) settled[n] = true;
      // Its words stay: no other term may replace them.
      for (const ByteRange& r : there)
        for (size_t w = 0; w < words.size(); ++w) taken[w] = taken[w] || (words[w].begin < r.end && r.begin < words[w].end);
    }
  }

  std::vector<TextEdit> edits;
  for (size_t m = 0; m < M; ++m) {
    if (settled[m]) continue;
    const ByteRange& term = matches[m].source;
    // The source tokens of the term: those whose characters (not the whitespace before them) overlap it.
    size_t lo = kNone, hi = kNone;
    for (size_t s = 0; s < S; ++s) {
      size_t b = source_tokens[s].begin;
      while (b < source_tokens[s].end && source_text[b] == ' ') ++b;
      if (b < term.end && term.begin < source_tokens[s].end && b < source_tokens[s].end) {
        if (lo == kNone) lo = s;
        hi = s;
      }
    }
    if (lo == kNone) continue;
    // The target words whose tokens attend most to the term's tokens; of several runs of such
    // words, the one with the most such tokens.
    std::vector<size_t> votes(words.size(), 0);
    for (size_t t = 0; t < T; ++t)
      if (points[t] != kNone && points[t] >= lo && points[t] <= hi && word_of[t] != kNone) ++votes[word_of[t]];
    size_t run_begin = kNone, run_end = kNone, run_votes = 0;
    for (size_t w = 0; w < words.size();) {
      if (!votes[w]) { ++w; continue; }
      size_t e = w, v = 0;
      while (e < words.size() && votes[e]) v += votes[e++];
      if (v > run_votes) { run_begin = w; run_end = e; run_votes = v; }
      w = e;
    }
    const bool cs = glossary.case_sensitive(matches[m].entry);
    // Words that another term has (the model's own wanted form of it, or a replacement) stay its.
    if (run_begin != kNone && std::any_of(taken.begin() + long(run_begin), taken.begin() + long(run_end), [](bool b) { return b; }))
      run_begin = kNone;
    if (run_begin != kNone) {
      std::fill(taken.begin() + long(run_begin), taken.begin() + long(run_end), true);
      const size_t b = words[run_begin].begin, e = words[run_end - 1].end;
      if (!same_term(std::string_view(text).substr(b, e - b), wanted[m], cs)) edits.push_back({b, e, wanted[m]});
      continue;
    }
    // No target word translates the term (the model left it out), or only words another term has:
    // it goes after the word that translates the source word before it, or before the one of the
    // word after it, else at the same relative place.
    size_t w = lo > 0 ? word_for(lo - 1) : kNone;
    if (w != kNone) {
      edits.push_back({words[w].end, words[w].end, " " + wanted[m]});
      continue;
    }
    w = hi + 1 < S ? word_for(hi + 1) : kNone;
    if (w == kNone && !words.empty()) {
      w = size_t(std::lround(double(lo) / double(S) * double(words.size())));
      if (w >= words.size()) {
        edits.push_back({words.back().end, words.back().end, " " + wanted[m]});
        continue;
      }
    }
    if (w != kNone)
      edits.push_back({words[w].begin, words[w].begin, wanted[m] + " "});
    else
      edits.push_back({text.size(), text.size(), (text.empty() ? "" : " ") + wanted[m]});
  }
  if (edits.empty()) return target;
  std::stable_sort(edits.begin(), edits.end(), [](const TextEdit& a, const TextEdit& b) { return a.begin < b.begin; });
  return apply_edits(target, edits);
}

}  // namespace tformer
