// Text the model cannot translate passes through (text/passthrough.h, TranslateOptions::passthrough),
// and the repetition guard stops decoding loops (decoding/rules.h, TranslateOptions::repetition_guard).
#include <catch.hpp>

#include <fstream>

#include "decoding/rules.h"
#include "fixtures.h"
#include "spelled_sentence.h"
#include "text/passthrough.h"
#include "tformer/translator.h"

using tformer::testing::spelled;
using namespace tformer;

namespace {

const auto nothing_unknown = [](char32_t) { return false; };

std::vector<std::string> span_texts(const ProtectedSentence& p) {
  std::vector<std::string> out;
  for (const auto& s : p.spans) out.push_back(s.text);
  return out;
}

std::vector<ByteRange> tokens(const std::vector<std::string>& pieces) { return spelled(pieces).tokens; }

size_t count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
  return n;
}

// The guard's rule, written out independently: the sequence ends with a token 4 times, or a group
// of 2-4 tokens 3 times, back to back.
bool ends_in_loop(const std::vector<int>& t) {
  for (size_t p = 1; p <= 4; ++p) {
    const size_t repeats = p == 1 ? 4 : 3;
    if (t.size() < repeats * p) continue;
    const std::vector<int> group(t.end() - long(p), t.end());
    bool loop = true;
    for (size_t r = 1; r < repeats && loop; ++r)
      loop = std::equal(group.begin(), group.end(), t.end() - long((r + 1) * p));
    if (loop) return true;
  }
  return false;
}

bool has_loop(const std::vector<int>& tokens) {
  for (size_t n = 1; n <= tokens.size(); ++n)
    if (ends_in_loop(std::vector<int>(tokens.begin(), tokens.begin() + long(n)))) return true;
  return false;
}

}  // namespace

std::vector<std::string> number_texts(const ProtectedSentence& p) {
  std::vector<std::string> out;
  for (const ByteRange& r : p.numbers) out.push_back(p.text.substr(r.begin, r.size()));
  return out;
}

TEST_CASE("passthrough: protect() takes out URLs, e-mail addresses, emoji and unknown characters, and marks numbers", "[passthrough]") {
  ProtectedSentence p = protect("Das Wetter ist ☀️ heute.", nothing_unknown);
  CHECK(p.text == "Das Wetter ist heute.");
  REQUIRE(span_texts(p) == std::vector<std::string>{"☀️"});
  CHECK(p.spans[0].at == std::string("Das Wetter ist ").size());
  CHECK(p.spans[0].space_before);
  CHECK(p.spans[0].space_after);
  CHECK(p.numbers.empty());

  // Numbers stay for the model, which writes them in its sentence's grammar; restore() checks them.
  p = protect("Der Preis beträgt 12,50 €.", nothing_unknown);
  CHECK(p.text == "Der Preis beträgt 12,50 €.");
  CHECK(p.spans.empty());
  CHECK(number_texts(p) == std::vector<std::string>{"12,50"});
  p = protect("Am 3. Mai um 8:30 Uhr (etwa 50%) kam der COVID-19-Test.", nothing_unknown);
  CHECK(p.spans.empty());
  CHECK(number_texts(p) == std::vector<std::string>{"3", "8:30", "50", "19"});

  p = protect("Schreib mir an anna@example.org oder besuche https://example.org/hilfe.", nothing_unknown);
  CHECK(p.text == "Schreib mir an oder besuche.");
  CHECK(span_texts(p) == std::vector<std::string>{"anna@example.org", "https://example.org/hilfe"});

  // Numbers beside spans: found in the cleaned text.
  p = protect("12 Kinder spielen mit 👩‍👩‍👧 im Park, 2 davon auf https://example.org/park.", nothing_unknown);
  CHECK(p.text == "12 Kinder spielen mit im Park, 2 davon auf.");
  CHECK(span_texts(p) == std::vector<std::string>{"👩‍👩‍👧", "https://example.org/park"});
  CHECK(number_texts(p) == std::vector<std::string>{"12", "2"});
  // A keycap is an emoji: whole.
  p = protect("Schritt 1️⃣ ist leicht.", nothing_unknown);
  CHECK(span_texts(p) == std::vector<std::string>{"1️⃣"});
  CHECK(p.numbers.empty());

  // Digits in a row of words are one code (a phone number), taken out whole, as a URL is.
  p = protect("Ruf mich an: +49 30 1234567.", nothing_unknown);
  CHECK(p.text == "Ruf mich an:.");
  CHECK(span_texts(p) == std::vector<std::string>{"+49 30 1234567"});
  CHECK(p.numbers.empty());
  p = protect("Es stand 84:80 (39:37) am Ende von 2 Spielen.", nothing_unknown);
  CHECK(p.spans.empty());
  CHECK(number_texts(p) == std::vector<std::string>{"84:80", "39:37", "2"});
  // Thousands grouped by spaces are a number, not a code.
  p = protect("Rund 25 000 Euro und 2019 100 Gäste.", nothing_unknown);
  CHECK(p.spans.empty());
  CHECK(number_texts(p) == std::vector<std::string>{"25 000", "2019", "100"});
  // Nothing but numbers, signs and units: copied.
  CHECK(protect("12,50 €", nothing_unknown).verbatim);

  // Several spans in a row stay together, in order, also where the sentence ends after them.
  p = protect("Schreib an: 😀 👍 ✅.", nothing_unknown);
  CHECK(p.text == "Schreib an:.");
  CHECK(span_texts(p) == std::vector<std::string>{"😀", "👍", "✅"});
  for (const auto& s : p.spans) CHECK(s.at == std::string("Schreib an:").size());
  CHECK(restore(p, tokens({"▁Schreib", "▁an", ":", "."}), spelled({"▁Write", "▁to", ":", "."}), {}, 4, 0) ==
        "Write to: 😀 👍 ✅.");

  // Characters the vocabulary lacks: whatever `unknown` says.
  p = protect("Ein Ǆ und ein ß.", [](char32_t c) { return c == 0x1C4; });
  CHECK(p.text == "Ein und ein ß.");
  CHECK(span_texts(p) == std::vector<std::string>{"Ǆ"});

  // Nothing to take out; nothing left to translate.
  p = protect("Zwei Kinder spielen im Park.", nothing_unknown);
  CHECK(p.text == "Zwei Kinder spielen im Park.");
  CHECK(p.spans.empty());
  CHECK(p.numbers.empty());
  CHECK_FALSE(p.verbatim);
  p = protect("12:30 😀!", nothing_unknown);
  CHECK(p.verbatim);
  CHECK(p.text == "12:30 😀!");
  p = protect("1:0 (71.)", nothing_unknown);
  CHECK(p.verbatim);
  CHECK(p.numbers.empty());
}

TEST_CASE("passthrough: restore() puts spans back at word boundaries, by a clear alignment or by position", "[passthrough]") {
  const ProtectedSentence p = protect("Das Wetter ist ☀️ heute.", nothing_unknown);
  const std::vector<ByteRange> source = tokens({"▁Das", "▁Wetter", "▁ist", "▁heute", "."});
  const AnnotatedSentence target = spelled({"▁The", "▁weather", "▁is", "▁today", "."});
  // No alignment, or a flat one: the same relative place (after the word at "ist"'s position).
  CHECK(restore(p, source, target, {}, 6, 0) == "The weather is ☀️ today.");
  // What was put back, and where: the span's bytes in the result, and in the sentence.
  std::vector<PutBack> put_back;
  const std::string restored = restore(p, source, target, {}, 6, 0, &put_back);
  REQUIRE(put_back.size() == 1);
  CHECK(restored.substr(put_back[0].text.begin, put_back[0].text.size()) == "☀️");
  CHECK(put_back[0].from == std::string("Das Wetter ist ").size());
  CHECK(put_back[0].position == std::string("The weather is").size());
  CHECK(put_back[0].length == std::string(" ☀️").size());
  CHECK(p.origin.size() == p.text.size());
  CHECK(p.origin.at(p.text.find("heute")) == std::string("Das Wetter ist ☀️ ").size());
  restore(protect("12:30 😀!", nothing_unknown), {}, AnnotatedSentence{"whatever", {}}, {}, 0, 0, &put_back);
  REQUIRE(put_back.size() == 1);  // a verbatim copy: the whole sentence
  CHECK(put_back[0].text == ByteRange{0, std::string("12:30 😀!").size()});
  std::vector<float> flat(6 * 6, 1.f / 6);
  CHECK(restore(p, source, target, flat, 6, 0) == "The weather is ☀️ today.");
  // A clear alignment of "ist" with "today": after that word, before its full stop.
  std::vector<float> peaked = flat;
  peaked[3 * 6 + 2] = 0.9f;
  CHECK(restore(p, source, target, peaked, 6, 0) == "The weather is today ☀️.");
  // With a BOS column first, the anchor's column moves by one.
  std::vector<float> with_bos(6 * 7, 0.f);
  with_bos[1 * 7 + 3] = 0.8f;
  CHECK(restore(p, source, target, with_bos, 7, 1) == "The weather ☀️ is today.");
  // Never inside a word: "to" + "day" is one word.
  CHECK(restore(p, source, spelled({"▁The", "▁weather", "▁is", "▁to", "day", "."}), {}, 6, 0) ==
        "The weather is today ☀️.");

  // A span that closes the sentence closes the translation, before its closing punctuation, also
  // where the word before it aligns with a word inside the translation (verbs move to the end in
  // German, not in English): "werden" is "be" here.
  const ProtectedSentence e = protect("Es kostet nichts, gefunden zu werden 😀.", nothing_unknown);
  CHECK(e.text == "Es kostet nichts, gefunden zu werden.");
  const std::vector<ByteRange> e_source = tokens({"▁Es", "▁kostet", "▁nichts", ",", "▁gefunden", "▁zu", "▁werden", "."});
  const AnnotatedSentence e_target = spelled({"▁It", "▁costs", "▁nothing", "▁to", "▁be", "▁found", "."});
  std::vector<float> werden_is_be(7 * 8, 0.f);
  werden_is_be[4 * 8 + 6] = 0.9f;
  CHECK(restore(e, e_source, e_target, werden_is_be, 8, 0) == "It costs nothing to be found 😀.");
  CHECK(restore(e, e_source, e_target, {}, 8, 0) == "It costs nothing to be found 😀.");
  // Closing punctuation of several kinds stays last; without any, the span is last.
  CHECK(restore(protect("Mehr unter https://example.org/info).", nothing_unknown), tokens({"▁Mehr", "▁unter", ")", "."}),
                spelled({"▁More", "▁at", ")", "."}), {}, 4, 0) == "More at https://example.org/info).");
  CHECK(restore(protect("Bis morgen 😀", nothing_unknown), tokens({"▁Bis", "▁morgen"}),
                spelled({"▁See", "▁you", "▁tomorrow", "!"}), {}, 2, 0) == "See you tomorrow 😀!");

  // Spans side by side in front of an empty translation keep the space between them.
  CHECK(restore(protect("Ruf 😀 👍 an.", nothing_unknown), tokens({"▁Ruf", "▁an", "."}), {}, {}, 3, 0) == "😀 👍");

  // A span that opened the sentence goes before the first word's place; several spans keep order.
  const ProtectedSentence q = protect("😀 Kinder und 👍 Hunde.", nothing_unknown);
  CHECK(q.text == "Kinder und Hunde.");
  CHECK(restore(q, tokens({"▁Kinder", "▁und", "▁Hunde", "."}), spelled({"▁Children", "▁and", "▁dogs", "."}), {}, 4, 0) ==
        "😀 Children and 👍 dogs.");
  // Nothing translatable: copied.
  CHECK(restore(protect("12:30 😀!", nothing_unknown), {}, AnnotatedSentence{"whatever", {}}, {}, 0, 0) == "12:30 😀!");
  // Tokens are placed by the bytes they stand for, not by their pieces' spelling: "…" becomes
  // three "." pieces, the first two standing for no bytes, so the span follows the third.
  const ProtectedSentence dots = protect("Er wartet… 😀 Tage lang.", nothing_unknown);
  REQUIRE(dots.text == "Er wartet… Tage lang.");
  const std::vector<ByteRange> dot_tokens{{0, 2}, {2, 9}, {9, 9}, {9, 9}, {9, 12}, {12, 17}, {17, 22}, {22, 23}};
  std::vector<float> last_dot(6 * 8, 0.f);
  last_dot[2 * 8 + 4] = 0.9f;  // "..." looked at the third "."
  CHECK(restore(dots, dot_tokens, spelled({"▁He", "▁waits", "...", "▁days", "▁long", "."}), last_dot, 8, 0) ==
        "He waits... 😀 days long.");
}

namespace {

// An alignment [target tokens + EOS x source tokens] that links each listed target token to one
// source token with weight 0.9 (the rest 0).
std::vector<float> links(size_t target, size_t source, const std::vector<std::pair<size_t, size_t>>& pairs) {
  std::vector<float> a((target + 1) * source, 0.f);
  for (const auto& [t, s] : pairs) a[t * source + s] = 0.9f;
  return a;
}

}  // namespace

TEST_CASE("passthrough: repair_numbers() puts back the numbers a translation lost", "[passthrough]") {
  // Kept as written, or as the target language writes it: nothing changes.
  ProtectedSentence p = protect("Ich habe 3 Katzen und 1.000 Euro.", nothing_unknown);
  std::vector<ByteRange> source = tokens({"▁Ich", "▁habe", "▁3", "▁Katzen", "▁und", "▁1.000", "▁Euro", "."});
  AnnotatedSentence target = spelled({"▁I", "▁have", "▁3", "▁cats", "▁and", "▁1,000", "▁euros", "."});
  CHECK(repair_numbers(p, source, target, {}, 8, 0).text == "I have 3 cats and 1,000 euros.");
  CHECK(same_number("1.000", "1,000"));
  CHECK(same_number("3,5", "3.5"));
  CHECK(same_number("60.000", "60000"));
  CHECK(same_number("18:17", "18:17"));
  CHECK(same_number("25 000", "25,000"));
  CHECK(same_number("25000", "25.000"));
  CHECK(same_number("95'000", "95,000"));
  CHECK_FALSE(same_number("1.000", "1"));
  CHECK_FALSE(same_number("1,5", "15"));
  CHECK_FALSE(same_number("04.05.2018", "0.4.05.2018"));
  CHECK_FALSE(same_number("12", "21"));

  // What is put back is written the target language's way where the model's metadata says both
  // languages (a number of thousands or with a fraction: not a date, a version or a time).
  CHECK(decimal_mark("de") == ',');
  CHECK(decimal_mark("en-US") == '.');
  CHECK(decimal_mark("xx") == 0);
  CHECK(with_decimal_mark("1.000", ',', '.') == "1,000");
  CHECK(with_decimal_mark("3,5", ',', '.') == "3.5");
  CHECK(with_decimal_mark("1.234.567,89", ',', '.') == "1,234,567.89");
  CHECK(with_decimal_mark("1,000", '.', ',') == "1.000");
  CHECK(with_decimal_mark("12345.5", '.', ',') == "12345,5");
  for (const char* kept : {"04.05.2018", "3.4.2", "18:17", "2018", "1234.567", "12.34,5"})
    CHECK(with_decimal_mark(kept, ',', '.') == kept);
  CHECK(with_decimal_mark("1.000", ',', 0) == "1.000");
  CHECK(with_decimal_mark("1.000", ',', ',') == "1.000");
  p = protect("Rund 2.000 Liter.", nothing_unknown);
  CHECK(repair_numbers(p, tokens({"▁Rund", "▁2", ".", "000", "▁Liter", "."}), spelled({"▁About", "▁liters", "."}), {}, 6, 0,
                       {',', '.'}).text == "About 2,000 liters.");

  // Written otherwise: the number whose tokens look at the source number's is replaced, and the
  // tokens' ranges follow.
  p = protect("Aktualisiert am 04.05.2018 um 11:11", nothing_unknown);
  source = tokens({"▁Aktualisiert", "▁am", "▁04", ".", "05", ".", "2018", "▁um", "▁11", ":", "11"});
  target = spelled({"▁Edited", "▁on", "▁0", ".", "4", ".", "05", ".", "2018", "▁at", "▁11", ":", "11"});
  std::vector<float> a = links(13, 11, {{2, 2}, {3, 2}, {4, 2}, {5, 3}, {6, 4}, {7, 5}, {8, 6}, {10, 8}, {11, 9}, {12, 10}});
  AnnotatedSentence r = repair_numbers(p, source, target, a, 11, 0);
  CHECK(r.text == "Edited on 04.05.2018 at 11:11");
  REQUIRE(r.tokens.size() == target.tokens.size());
  CHECK(r.tokens[1].end == std::string("Edited on").size());
  CHECK(r.tokens[8].end == std::string("Edited on 04.05.2018").size());  // the replaced number's last token ends with it
  CHECK(r.text.substr(r.tokens[9].begin, r.tokens[9].size()) == " at");

  // Left out: put in after the word aligned with the source word before it.
  p = protect("Die Sonde startete im Dezember 2014 in Japan.", nothing_unknown);
  source = tokens({"▁Die", "▁Sonde", "▁startete", "▁im", "▁Dezember", "▁2014", "▁in", "▁Japan", "."});
  target = spelled({"▁The", "▁probe", "▁was", "▁launched", "▁in", "▁Japan", "▁in", "▁December", "."});
  a = links(9, 9, {{0, 0}, {1, 1}, {3, 2}, {5, 7}, {6, 3}, {7, 4}});
  CHECK(repair_numbers(p, source, target, a, 9, 0).text == "The probe was launched in Japan in December 2014.");
  // At the end of the sentence: before its closing punctuation.
  p = protect("Das Spiel endete 3:1.", nothing_unknown);
  source = tokens({"▁Das", "▁Spiel", "▁endete", "▁3", ":", "1", "."});
  CHECK(repair_numbers(p, source, spelled({"▁The", "▁game", "▁ended", "."}), {}, 7, 0).text == "The game ended 3:1.");
  // Never glued to a number beside it.
  p = protect("Mit 84:80 (39:37) gewonnen.", nothing_unknown);
  source = tokens({"▁Mit", "▁84", ":", "80", "▁(", "39", ":", "37", ")", "▁gewonnen", "."});
  target = spelled({"▁Won", "▁84", ":", "80", "▁(", ")", "."});
  a = links(7, 11, {{0, 9}, {1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 8}});
  r = repair_numbers(p, source, target, a, 11, 0);
  CHECK(r.text.find("84:80") != std::string::npos);
  CHECK(r.text.find("39:37") != std::string::npos);
  CHECK(r.text.find("8039") == std::string::npos);
  // Nor put beside one, where the two would read as one number in thousands groups.
  p = protect("Mindestens 100 bis 250 Meter weit.", nothing_unknown);
  source = tokens({"▁Mindestens", "▁100", "▁bis", "▁250", "▁Meter", "▁weit", "."});
  target = spelled({"▁At", "▁least", "▁250", "▁metres", "▁far", "."});
  a = links(6, 7, {{0, 0}, {1, 0}, {2, 3}, {3, 4}, {4, 5}});
  r = repair_numbers(p, source, target, a, 7, 0);
  CHECK(r.text == "At least 250 metres far 100.");
  // Two numbers, one written twice by the model: the other is put back.
  p = protect("Ich habe 3 Katzen und 2 Hunde.", nothing_unknown);
  source = tokens({"▁Ich", "▁habe", "▁3", "▁Katzen", "▁und", "▁2", "▁Hunde", "."});
  target = spelled({"▁I", "▁have", "▁3", "▁cats", "▁and", "▁3", "▁dogs", "."});
  a = links(8, 8, {{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}, {6, 6}});
  CHECK(repair_numbers(p, source, target, a, 8, 0).text == "I have 3 cats and 2 dogs.");
  // A verbatim copy and a sentence without numbers: nothing to do.
  p = protect("Zwei Kinder.", nothing_unknown);
  target = spelled({"▁Two", "▁children", "."});
  CHECK(repair_numbers(p, tokens({"▁Zwei", "▁Kinder", "."}), target, {}, 3, 0).text == "Two children.");
}

TEST_CASE("passthrough on a shipped model: what it cannot translate comes out as it went in", "[passthrough]") {
  const std::string model = std::string(TFORMER_FIXTURES_DIR) + "/../../models/tiny.deen/model.tfm";
  if (!std::ifstream(model)) {
    WARN("no " << model << ": skipped");
    return;
  }
  Translator t(model);
  TranslateOptions on = testing::plain_options();
  on.passthrough = true;
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"Das Wetter ist ☀️ heute.", {"☀️"}},
      {"Der Preis beträgt 12,50 €.", {"12,50"}},
      {"Schreib mir an anna@example.org oder besuche https://example.org/hilfe.", {"anna@example.org", "https://example.org/hilfe"}},
      {"Ich habe 3 Katzen und 2 Hunde.", {"3", "2"}},
      {"Am 3. Mai feiern wir 😀 zusammen.", {"3", "😀"}},
      {"Von az, aktualisiert am 04.05.2018 um 11:11", {"04.05.2018", "11:11"}},
      {"Ruf mich an: 0171 2345678.", {"0171 2345678"}},
      {"Es kostet nichts, gefunden zu werden 😀.", {"😀"}},
  };
  for (const auto& [text, spans] : cases) {
    const std::string out = t.translate({text}, on).at(0).text;
    INFO(text << " -> " << out);
    for (const std::string& s : spans) {
      if (number_runs(s).size() == 1 && number_runs(s)[0].size() == s.size()) {  // a number: as the target language writes it
        size_t found = 0;
        for (const ByteRange& r : number_runs(out)) found += same_number(s, out.substr(r.begin, r.size()));
        CHECK(found == 1);
      } else {
        CHECK(count(out, s) == 1);
      }
    }
  }
  // A span that closes the sentence closes the translation (not "to be 😀 found.").
  const std::string closing = t.translate({"Es kostet nichts, gefunden zu werden 😀."}, on).at(0).text;
  INFO(closing);
  CHECK(closing.size() > std::string("😀.").size());
  CHECK(closing.compare(closing.size() - std::string(" 😀.").size(), std::string::npos, " 😀.") == 0);
  // A number inside a glossary term is the term's: a wanted form without it gets none put back.
  TranslateOptions with_term = on;
  with_term.glossary = {{"COVID-19", std::string("Corona"), true}};
  const std::string termed = t.translate({"Die COVID-19 Pandemie dauerte 3 Jahre."}, with_term).at(0).text;
  INFO(termed);
  CHECK(termed.find("Corona") != std::string::npos);
  CHECK(termed.find("19") == std::string::npos);
  CHECK(termed.find('3') != std::string::npos);
  // Without anything to pass through, the translation is the model's own.
  const std::string plain = "Zwei Kinder spielen im Park. Ein Junge springt ins Wasser.";
  CHECK(t.translate({plain}, on).at(0).text == t.translate({plain}, testing::plain_options()).at(0).text);
  // The alignment it needs internally is returned only when asked for.
  const Translation r = t.translate({"Das Wetter ist ☀️ heute."}, on).at(0);
  CHECK(r.sentences.at(0).alignment.empty());
  TranslateOptions with_alignment = on;
  with_alignment.return_alignment = true;
  CHECK_FALSE(t.translate({"Das Wetter ist ☀️ heute."}, with_alignment).at(0).sentences.at(0).alignment.empty());
}

TEST_CASE("repetition guard: the rule", "[passthrough]") {
  int out[4];
  CHECK(looping_tokens({}, out) == 0);
  REQUIRE(looping_tokens({7, 5, 5, 5}, out) == 1);
  CHECK(out[0] == 5);
  CHECK(looping_tokens({5, 5}, out) == 0);
  REQUIRE(looping_tokens({1, 2, 1, 2, 1}, out) == 1);
  CHECK(out[0] == 2);
  REQUIRE(looping_tokens({4, 1, 2, 3, 1, 2, 3, 1, 2}, out) == 1);
  CHECK(out[0] == 3);
  CHECK(looping_tokens({1, 2, 3, 1, 2}, out) == 0);  // twice is fine
}

TEST_CASE("repetition guard on a model that loops: no loop left, greedy outputs without loops unchanged", "[passthrough]") {
  // The random-weight fixture loops on most inputs ("li li li li ...", its PyTorch reference too).
  Translator t(testing::fixture_path("marian", "model.tfm"));
  const std::vector<std::string> inputs = testing::read_lines(testing::fixture_path("marian", "input.txt"));
  TranslateOptions guard = testing::plain_options();
  guard.repetition_guard = true;
  size_t looped = 0;
  for (int beam : {1, 4}) {
    TranslateOptions plain = testing::plain_options();
    plain.beam_size = guard.beam_size = beam;
    plain.nbest = guard.nbest = beam;
    const auto without = t.translate(inputs, plain), with = t.translate(inputs, guard);
    for (size_t i = 0; i < inputs.size(); ++i) {
      const auto& a = without.at(i).sentences.at(0).hypotheses;
      const auto& b = with.at(i).sentences.at(0).hypotheses;
      for (const Hypothesis& h : b) CHECK_FALSE(has_loop(h.tokens));
      if (has_loop(a.at(0).tokens)) ++looped;
      // Greedy: where the plain search did not loop, the guard blocked nothing on its way. (A beam
      // may differ: blocked candidates leave room in it for others.)
      else if (beam == 1) CHECK(b.at(0).tokens == a.at(0).tokens);
    }
  }
  CHECK(looped > 0);  // the guard had loops to stop
}
