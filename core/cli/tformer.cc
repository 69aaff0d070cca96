// tformer: the command-line face of the engine.
//
//   tformer translate -m MODEL [options]         stdin lines -> stdout translations
//   tformer translate --from SRC --to TGT        the same with a pair of Firefox's model catalogue
//   tformer models [--catalog URL]               the catalogue's pairs
//   tformer convert FOLDER -o MODEL.tfm          a Marian model (Firefox Translations, OPUS-MT) -> .tfm
//   tformer info MODEL | info -m MODEL
// MODEL is a .tfm file, a Marian model folder or a Marian model file (imported in memory).
//   tformer bench -m MODEL.tfm -i FILE [options]
//   tformer detect [--all]                       stdin lines -> stdout "lang<TAB>confidence"
//   tformer memory clear|stats                   the translation memory of translate --memory
//   tformer --help | --version
#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "alignment_json.h"
#include "catalog_client.h"
#include "confidence_json.h"
#include "input.h"
#include "marian_folder.h"
#include "memory_file.h"
#include "readable_json.h"
#include "tformer/language_detector.h"
#include "tformer/language_tags.h"
#include "tformer/marian.h"
#include "tformer/pivot.h"
#include "tformer/profile.h"
#include "tformer/translator.h"
#include "text/glossary_file.h"
#include "util/printable.h"

#ifndef TFORMER_VERSION
#define TFORMER_VERSION "unknown"
#endif

namespace {

using Clock = std::chrono::steady_clock;

// The help, with the engine's defaults (tformer::TranslateOptions, TranslatorConfig): they are
// stated once, in C++, and printed from there.
std::string usage() {
  const tformer::TranslateOptions d;
  const tformer::TranslatorConfig c;
  auto on_off = [](bool on) { return std::string(on ? "on" : "off"); };
  auto number = [](double x) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", x);
    return std::string(text);
  };
  return
    "usage:\n"
    "  tformer translate -m MODEL [options]\n"
    "      Reads UTF-8 lines on stdin and writes one translation per line on stdout, in order.\n"
    "      Input is read and translated in batches of --batch-lines lines; each batch's output is\n"
    "      written as soon as it is done. An empty line gives an empty line.\n"
    "  tformer translate --from SRC --to TGT [--catalog URL] [--cache DIR] [options]\n"
    "      The same with the models of a model catalogue (default: Firefox's, at\n"
    "      " + std::string(tformer::catalog::kFirefoxServer) + "): the pair's files are downloaded\n"
    "      the first time (checked against the catalogue's sha256 and sizes, unpacked) and cached;\n"
    "      the records are read again each time (a newer version replaces the cached one; offline,\n"
    "      the cached pair is used as it is);\n"
    "      a pair without a direct model is translated through English (SRC->en->TGT).\n"
    "  tformer models [--catalog URL] [--cache DIR]\n"
    "      Lists the catalogue's pairs: direct or through English, architecture, download size, and\n"
    "      whether they are cached. Nothing is downloaded but the catalogue's list of files.\n"
    "  tformer convert FOLDER -o MODEL.tfm [--weights keep|f32|f16|int8] [Marian options]\n"
    "      Converts a Marian model (a Firefox Translations or OPUS-MT folder, or its model file) to\n"
    "      .tfm: the same file as models/tfm import-marian writes (models/MARIAN-IMPORT.md).\n"
    "  tformer info MODEL            (or: tformer info -m MODEL)\n"
    "      Prints the architecture, the metadata and the tensor table; for a Marian model first\n"
    "      what the import found (variant, vocabularies, ignored options, shortlist, warnings).\n"
    "  tformer bench -m MODEL.tfm -i FILE [options] [--json OUT]\n"
    "      Translates FILE's non-empty lines and prints sentences/s, target tokens/s, latency and\n"
    "      memory (--json OUT also writes them as JSON). --profile: also where the batch's time\n"
    "      goes, per phase (encoder, decoder self-attention, cross-attention, feed-forward, output\n"
    "      projection, softmax/top-k, beam bookkeeping, KV-cache reorder, the rest), from timers\n"
    "      in the engine.\n"
    "  tformer detect [--all] [--max-chars N] [--on-error skip|stop]\n"
    "      Reads UTF-8 lines on stdin and writes the language of each line on stdout, in order, as\n"
    "      'LANG<TAB>CONFIDENCE': a BCP 47 tag and the share of the line's letters in it (0 to 1),\n"
    "      from CLD2, the detector Firefox uses. 'und' when no language is detected (an empty line,\n"
    "      digits, too little text), with the share of the text in no language. --all: every\n"
    "      language as the web's LanguageDetector.detect() lists them, by confidence, tab-separated\n"
    "      pairs, ending with 'und' and the rest. A line of fewer than " + std::to_string(tformer::kConfidentDetectionChars) + " characters is seldom\n"
    "      reliable (Firefox does not act on it).\n"
    "  tformer memory clear|stats [--cache DIR]\n"
    "      The translation memory of translate --memory: clear removes it, stats prints its size.\n"
    "  tformer --help | --version\n"
    "\n"
    "MODEL is a .tfm file, or a Marian model as downloaded: its folder (model .npz or .bin, with\n"
    "vocabularies; .gz copies are read too) or its model file. A Marian model is converted in memory\n"
    "each time it is loaded; tformer convert does it once. Refused models are named with the option.\n"
    "\n"
    "Marian options (translate, bench, info, convert):\n"
    "  --vocab FILE              a vocabulary (.spm, or .yml with --spm): once for both sides, twice\n"
    "                            for source then target (default: found in the folder)\n"
    "  --spm FILE                SentencePiece model of a .yml vocabulary (default source.spm,\n"
    "                            target.spm); once or twice\n"
    "  --config FILE             Marian options (YAML) for a model without special:model.yml\n"
    "  --weights W               convert: storage of matrices: keep (float32 stays f32, intgemm8\n"
    "                            becomes int8; default), f32, f16 or int8\n"
    "  --max-positions N         the longest sequence the engine handles in one piece; longer\n"
    "                            sentences are translated in pieces (default 512)\n"
    "  -o, --output FILE         convert: the .tfm to write\n"
    "\n"
    "catalogue options (translate --from/--to, models):\n"
    "  --from SRC, --to TGT      the pair, as language tags (fr, de, en, zh, ...), matched to the\n"
    "                            catalogue's by best fit as the web's Translator API does: DE and\n"
    "                            de-AT are its de, zh-TW its zh-Hant\n"
    "  --catalog URL             the catalogue's server: a Remote Settings server with the collection\n"
    "                            " + std::string(tformer::catalog::kCollection) + " (default Firefox's)\n"
    "  --cache DIR               where pairs are kept (default $XDG_CACHE_HOME/tformer or\n"
    "                            ~/.cache/tformer); a cached pair works offline\n"
    "  --channel C               release (default), beta or nightly: the records that channel sees\n"
    "  --architecture A          only models of this architecture (tiny, base, base-memory)\n"
    "\n"
    "options of translate and bench:\n"
    "  -m, --model MODEL         the model (required)\n"
    "  --beam N                  beam size, 1 = greedy search (default " + std::to_string(d.beam_size) + "; 1 to " +
    std::to_string(tformer::kMaxBeamSize) + ")\n"
    "  --nbest N                 write the N best hypotheses of each line, one per output line, as\n"
    "                            'INDEX ||| TEXT ||| SCORE' (INDEX counts input lines from 0); needs\n"
    "                            --beam N or more (default 1: plain translations). An empty input line\n"
    "                            gives one empty hypothesis.\n"
    "  --scores                  prefix each translation with its score and a tab: the sum over its\n"
    "                            sentences of log-probability / length^penalty (higher is better)\n"
    "  --alignment               write each translation as a line of JSON: per sentence, its bytes in\n"
    "                            the input line and in the translation, each token's bytes, pieces\n"
    "                            and score, and the alignment [target x source tokens]\n"
    "                            (not with --html or --nbest)\n"
    "  --confidence              write one JSON object per line instead of its translation: the\n"
    "                            text, and per sentence its text, its score (the mean log-probability\n"
    "                            of its tokens) and its words with their confidence (the product\n"
    "                            of their tokens' probabilities) and their UTF-8 byte offsets in the\n"
    "                            sentence's text, the log-probability of each token (EOS last) and\n"
    "                            the tokens of each word: {\"text\", \"sentences\": [{\"text\",\n"
    "                            \"score\", \"logProbs\", \"words\": [{\"text\", \"start\", \"end\",\n"
    "                            \"confidence\", \"tokens\": [first, last)}]}]}\n"
    "  --length-penalty X        rank hypotheses by log-probability / length^X; 0 favours short\n"
    "                            output (default " + number(d.length_penalty) + "; 0 to 10)\n"
    "  --max-length N            at most N target tokens per sentence (default 0: about twice the\n"
    "                            source length, within the model's positions)\n"
    "  --no-split                translate each line as one sentence (default: split each line into\n"
    "                            sentences and join their translations with a space)\n"
    "  --html                    each input line is a fragment of HTML: its markup is kept, its text\n"
    "                            translated, inline elements (a, b, em...) placed on the translated\n"
    "                            words by the model's alignment; script, style, translate=\"no\" and\n"
    "                            code/pre/kbd/samp are kept untranslated\n"
    "  --html-translate-code     with --html: translate code, pre, kbd and samp too\n"
    "                            (--html takes --scores, not --nbest)\n"
    "  --passthrough, --no-passthrough\n"
    "                            pass through what the model cannot translate: numbers, URLs, e-mail\n"
    "                            addresses, emoji and symbols, and characters outside its vocabulary\n"
    "                            are taken out before translating and put back into the translation\n"
    "                            as typed (default " + on_off(d.passthrough) + ")\n"
    "  --repetition-guard, --no-repetition-guard\n"
    "                            stop decoding loops: a token that would repeat the last token a fourth\n"
    "                            time, or a group of 2-4 tokens a third time, is not taken (default " + on_off(d.repetition_guard) + ")\n"
    "                            (--no-passthrough --no-repetition-guard: the model's own output, as\n"
    "                            its reference implementations give it)\n"
    "  --glossary FILE           terms to translate your way, or to keep: a TSV file, one term a line,\n"
    "                            source<TAB>target<TAB>flags (an empty target keeps the source as\n"
    "                            it is; flag i: any case, c: case as written, the default; #\n"
    "                            starts a comment; docs/CLI.md#glossaries). A term the model\n"
    "                            translates otherwise is replaced where the alignment says it went;\n"
    "                            it is put in as written, not inflected\n"
    "  --no-shortlist            score the whole vocabulary even when the model has a lexical\n"
    "                            shortlist (default: each sentence scores its shortlisted words)\n"
    "  --threads N               threads for the matrix products (default " + std::to_string(c.threads) + "; 1 to " +
    std::to_string(tformer::kMaxThreads) + ")\n"
    "  --kernels NAME            the kernel library of the matrix products: xnnpack (default:\n"
    "                            XNNPACK's fast kernels) or reference (plain C++, slow; the engine's\n"
    "                            tests hold XNNPACK to it). --backend NAME: its old name\n"
    "  --batch-tokens N          source tokens (padding included) per encoder batch; more is faster\n"
    "                            up to a point and uses more memory (default " + std::to_string(d.max_batch_tokens) + ")\n"
    "  --batch-lines N           translate: lines read and translated together (default 64)\n"
    "  --memory, --no-memory     translate: answer sentences translated before (with the same model\n"
    "                            file and the same options) from the translation memory, a file in\n"
    "                            the cache folder (--cache DIR), and add the new ones to it; stderr\n"
    "                            says how many it answered (default off; tformer memory clear)\n"
    "  --max-chars N             the longest input line, in characters; a longer line is an error\n"
    "                            (see --on-error) (default " + std::to_string(d.max_input_chars) + "; 0 = no limit)\n"
    "  --max-sentence-tokens N   cut sentences longer than N source tokens into pieces of N tokens,\n"
    "                            each translated on its own (default 0: the model's own limit,\n"
    "                            its max_positions minus BOS/EOS)\n"
    "  --on-error skip|stop      translate: what a line that cannot be translated (not valid UTF-8,\n"
    "                            over --max-chars) does. skip (default): its output line is empty,\n"
    "                            stderr names the line and why, the other lines are translated and\n"
    "                            the exit status is 1 at the end. stop: the lines before it are\n"
    "                            written, then tformer exits with status 1.\n"
    "\n"
    "exit status: 0 success; 1 an error (model, input or a skipped line); 2 a usage error.\n";
}

struct Args {
  std::string command, model, input, json, output;
  std::string from, to;
  tformer::cli::CatalogSettings catalog;
  std::vector<std::string> vocabs, spms;
  std::string marian_config, weights = "keep";
  std::string glossary;  // --glossary FILE, read into options.glossary once parsed
  int max_positions = 512;
  std::vector<std::string> positional;
  tformer::TranslateOptions options;
  tformer::TranslatorConfig config;
  bool scores = false, profile = false, alignment = false;
  size_t batch_lines = 64;
  bool stop_on_error = false;
  bool all_languages = false;
  bool memory = false;
};

[[noreturn]] void usage_error(const std::string& msg) {
  std::cerr << "tformer: " << msg << "\n(tformer --help lists the commands and options)\n";
  std::exit(2);
}

int to_int(const std::string& flag, const std::string& v) {
  try {
    size_t used = 0;
    const int n = std::stoi(v, &used);
    if (used != v.size()) throw std::invalid_argument(v);
    return n;
  } catch (const std::exception&) {
    usage_error(flag + " needs an integer, got '" + v + "'");
  }
}

int to_int_at_least(const std::string& flag, const std::string& v, int min) {
  const int n = to_int(flag, v);
  if (n < min) usage_error(flag + " must be at least " + std::to_string(min) + ", got " + v);
  return n;
}

float to_float(const std::string& flag, const std::string& v) {
  try {
    size_t used = 0;
    const float x = std::stof(v, &used);
    if (used != v.size()) throw std::invalid_argument(v);
    return x;
  } catch (const std::exception&) {
    usage_error(flag + " needs a number, got '" + v + "'");
  }
}

Args parse(int argc, char** argv) {
  if (argc < 2) usage_error("no command");
  Args a;
  a.command = argv[1];
  for (int i = 2; i < argc; ++i) {
    const std::string f = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage_error(f + " needs a value");
      return argv[++i];
    };
    if (f == "-m" || f == "--model") a.model = value();
    else if (f == "-i" || f == "--input") a.input = value();
    else if (f == "--from") a.from = value();
    else if (f == "--to") a.to = value();
    else if (f == "--catalog") a.catalog.server = value();
    else if (f == "--cache") a.catalog.cache_dir = value();
    else if (f == "--architecture") a.catalog.options.architecture = value();
    else if (f == "--channel") {
      const std::string c = value();
      if (c != "release" && c != "beta" && c != "nightly") usage_error("--channel must be release, beta or nightly, got '" + c + "'");
      a.catalog.options.channel = tformer::catalog::channel_from_name(c);
    }
    else if (f == "--json") a.json = value();
    else if (f == "-o" || f == "--output") a.output = value();
    else if (f == "--vocab") a.vocabs.push_back(value());
    else if (f == "--spm") a.spms.push_back(value());
    else if (f == "--config") a.marian_config = value();
    else if (f == "--max-positions") a.max_positions = to_int_at_least(f, value(), 1);
    else if (f == "--weights") {
      a.weights = value();
      if (a.weights != "keep" && a.weights != "f32" && a.weights != "f16" && a.weights != "int8")
        usage_error("--weights must be keep, f32, f16 or int8, got '" + a.weights + "'");
    }
    else if (f == "--beam") a.options.beam_size = to_int(f, value());
    else if (f == "--nbest") a.options.nbest = to_int(f, value());
    else if (f == "--threads") a.config.threads = to_int(f, value());
    else if (f == "--max-length") a.options.max_length = to_int(f, value());
    else if (f == "--length-penalty") a.options.length_penalty = to_float(f, value());
    else if (f == "--batch-tokens") a.options.max_batch_tokens = size_t(to_int_at_least(f, value(), 1));
    else if (f == "--batch-lines") a.batch_lines = size_t(to_int_at_least(f, value(), 1));
    else if (f == "--max-chars") a.options.max_input_chars = size_t(to_int_at_least(f, value(), 0));
    else if (f == "--max-sentence-tokens") a.options.max_sentence_tokens = to_int_at_least(f, value(), 0);
    else if (f == "--scores") a.scores = true;
    else if (f == "--alignment") a.alignment = a.options.return_alignment = true;
    else if (f == "--confidence") a.options.confidence = true;
    else if (f == "--all") a.all_languages = true;
    else if (f == "--memory") a.memory = true;
    else if (f == "--no-memory") a.memory = false;
    else if (f == "--profile") a.profile = true;
    else if (f == "--no-split") a.options.split_sentences = false;
    else if (f == "--html") a.options.html = true;
    else if (f == "--html-translate-code") a.options.html_translate_code = true;
    else if (f == "--no-shortlist") a.options.shortlist = false;
    else if (f == "--glossary") a.glossary = value();
    else if (f == "--passthrough") a.options.passthrough = true;
    else if (f == "--no-passthrough") a.options.passthrough = false;
    else if (f == "--repetition-guard") a.options.repetition_guard = true;
    else if (f == "--no-repetition-guard") a.options.repetition_guard = false;
    else if (f == "--on-error") {
      const std::string v = value();
      if (v == "skip") a.stop_on_error = false;
      else if (v == "stop") a.stop_on_error = true;
      else usage_error("--on-error must be skip or stop, got '" + v + "'");
    } else if (f == "--kernels" || f == "--backend") {  // --backend: the old name
      const std::string k = value();
      if (k == "xnnpack") a.config.kernels = tformer::KernelLibrary::kXnnpack;
      else if (k == "reference") a.config.kernels = tformer::KernelLibrary::kReference;
      else usage_error(f + " must be xnnpack or reference, got '" + k + "'");
    } else if (f == "-h" || f == "--help") {
      std::cout << usage();
      std::exit(0);
    } else if (f == "--version") {
      std::cout << "tformer " << TFORMER_VERSION << "\n";
      std::exit(0);
    } else if (!f.empty() && f[0] == '-') usage_error("unknown option " + f);
    else a.positional.push_back(f);
  }
  if (a.profile && a.command != "bench") usage_error("--profile is an option of bench only");
  if (a.all_languages && a.command != "detect") usage_error("--all is an option of detect only");
  if (a.memory && a.command != "translate") usage_error("--memory is an option of translate only");
  // The HTML of a line is built from its best translation only.
  if (a.options.confidence && (a.options.nbest > 1 || a.scores))
    usage_error("--confidence cannot be used with --nbest or --scores (its JSON has the best translation and its score)");
  if (a.options.html && a.options.nbest > 1) usage_error("--nbest cannot be used with --html (the HTML is built from the best translation)");
  if (a.alignment && a.options.confidence)
    usage_error("--alignment and --confidence cannot be used together (each writes its own JSON line)");
  if (a.alignment && (a.options.html || a.options.nbest > 1))
    usage_error("--alignment cannot be used with --html or --nbest (it gives the best translation's byte ranges in plain text)");
  return a;
}

std::vector<std::string> read_lines(std::istream& in) {
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

// ---- Marian models: read the folder's files, import them in memory ----------------------------
bool is_directory(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// What a model path holds, by its first bytes rather than its name: a .tfm file ("TFMODEL\0"), or
// a Marian model, a folder or a model file (.npz: a zip; .bin: its binary format version, 1, as a
// 64-bit number; .gz: gzip). Anything else is refused here with the file named and what it starts
// with, rather than read as a folder holding no vocabulary.
enum class ModelKind { kTfm, kMarian };

ModelKind model_kind(const std::string& path) {
  if (is_directory(path)) return ModelKind::kMarian;
  // A path that is not there: each loader says so in its words.
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return ends_with(path, ".tfm") ? ModelKind::kTfm : ModelKind::kMarian;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw tformer::Error("model '" + tformer::printable(path) + "': " + std::strerror(errno));
  char head[8] = {};
  in.read(head, sizeof head);
  const size_t n = size_t(in.gcount());
  const std::string start(head, n);
  static const char kTfm[8] = {'T', 'F', 'M', 'O', 'D', 'E', 'L', '\0'};
  static const char kMarianBin[8] = {1, 0, 0, 0, 0, 0, 0, 0};
  if (n == 8 && std::memcmp(head, kTfm, 8) == 0) return ModelKind::kTfm;
  if (start.rfind("PK\x03\x04", 0) == 0 || start.rfind("\x1f\x8b", 0) == 0 || (n == 8 && std::memcmp(head, kMarianBin, 8) == 0))
    return ModelKind::kMarian;
  // A .tfm by name: the engine says what is wrong with it (truncated, bad magic...).
  if (ends_with(path, ".tfm")) return ModelKind::kTfm;
  throw tformer::Error("model '" + tformer::printable(path) + "' is not a model file: not a .tfm model (bad magic: it starts with " +
                       tformer::printable(nlohmann::json(start).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)) +
                       (n < 8 ? ", " + std::to_string(n) + " bytes in all" : "") +
                       "), nor a Marian model (.npz, .bin or .gz); MODEL is a .tfm file, a Marian model folder or its model file");
}

bool is_marian(const std::string& path) { return model_kind(path) == ModelKind::kMarian; }


std::string name_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

// Imports the folder (or the model file's folder); --vocab, --spm and --config name files of the
// folder, or files elsewhere when given as paths.
tformer::MarianImport import_marian_model(const Args& a, const std::string& path) {
  tformer::MarianImportOptions options;
  options.weights = a.weights;
  options.max_positions = a.max_positions;
  std::string folder = path;
  if (!is_directory(path)) {
    if (!exists(path)) throw tformer::Error("'" + tformer::printable(path) + "': no such file or folder");
    const size_t slash = path.find_last_of('/');
    folder = slash == std::string::npos ? "." : path.substr(0, slash);
    options.model = name_of(path);
  }
  std::vector<std::string> named;
  auto name = [&](const std::string& v) {
    if (v.find('/') != std::string::npos || exists(v)) named.push_back(v);
    return name_of(v);
  };
  for (const auto& v : a.vocabs) options.vocabs.push_back(name(v));
  for (const auto& v : a.spms) options.spms.push_back(name(v));
  if (!a.marian_config.empty()) options.config = name(a.marian_config);
  tformer::cli::MarianFolder files(folder, named);
  tformer::MarianImport m;
  try {
    m = tformer::import_marian(files, options);
  } catch (const tformer::Error& e) {
    if (!is_directory(path)) throw;
    // A folder is read as a Marian model; one holding .tfm files was probably meant otherwise.
    std::string hint;
    for (const auto& n : files.names()) {
      if (ends_with(n, ".tfm")) hint += (hint.empty() ? "" : ", ") + tformer::printable(n);
    }
    if (!hint.empty()) hint = " (it holds " + hint + ": a .tfm model is loaded by its file name)";
    throw tformer::Error("model folder '" + tformer::printable(path) + "': " + e.what() + hint);
  }
  for (const auto& w : m.warnings) std::cerr << "tformer: warning: " << tformer::printable(w) << "\n";
  return m;
}

// The translator of a .tfm file, or of a Marian model imported in memory.
std::unique_ptr<tformer::Translator> load_translator(const Args& a, const std::string& path,
                                                     const tformer::TranslatorConfig& config = {}) {
  if (!is_marian(path)) return std::make_unique<tformer::Translator>(path, config);
  return std::make_unique<tformer::Translator>(import_marian_model(a, path).tfm, config);
}

// ---- a pair of the model catalogue -------------------------------------------------------------
// What translates: one model, or two through English (a catalogue pair without a direct model).
struct Engine {
  std::vector<std::unique_ptr<tformer::Translator>> models;
  std::unique_ptr<tformer::PivotTranslator> pivot;
  std::vector<tformer::Translation> translate(const std::vector<std::string>& texts, const tformer::TranslateOptions& o) {
    return pivot ? pivot->translate(texts, o) : models.at(0)->translate(texts, o);
  }
};

bool uses_catalog(const Args& a) { return !a.from.empty() || !a.to.empty(); }

// The pair's models, from the cache or downloaded, imported in memory.
Engine load_catalog_pair(const Args& a) {
  if (a.from.empty() || a.to.empty()) usage_error("a catalogue pair needs both --from and --to");
  tformer::cli::CatalogClient client(a.catalog);
  tformer::catalog::Plan plan;
  try {
    plan = client.plan(a.from, a.to);
  } catch (const tformer::Error& e) {
    // A pair the catalogue lacks: the engine names the nearest pairs; `models` lists them all.
    if (e.code() != tformer::ErrorCode::kInvalidCatalog || e.detail().find(" cannot translate ") == std::string::npos) throw;
    throw tformer::Error(e.code(), e.phase(), e.detail() + "; tformer models lists them all");
  }
  Engine e;
  for (auto& step : client.fetch(plan)) {
    tformer::MarianImportOptions options;
    options.weights = a.weights;
    options.max_positions = a.max_positions;
    options.name = step.model.source + "-" + step.model.target;
    tformer::MarianImport m;
    try {
      m = tformer::import_marian(step.files, options);
    } catch (const tformer::Error& err) {
      throw tformer::Error(err.code(), err.phase(), "the catalogue's " + step.model.source + "->" + step.model.target +
                           " model (version " + step.model.version + "): " + err.what());
    }
    for (const auto& w : m.warnings) std::cerr << "tformer: warning: " << w << "\n";
    e.models.push_back(std::make_unique<tformer::Translator>(std::move(m.tfm), a.config));
  }
  if (e.models.size() == 2) e.pivot = std::make_unique<tformer::PivotTranslator>(*e.models[0], *e.models[1]);
  return e;
}

Engine load_engine(const Args& a) {
  if (uses_catalog(a)) {
    if (!a.model.empty()) usage_error("give either -m MODEL or --from/--to, not both");
    return load_catalog_pair(a);
  }
  Engine e;
  e.models.push_back(load_translator(a, a.model, a.config));
  return e;
}

std::string size_text(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MB", double(bytes) / 1e6);
  return text;
}

// The catalogue's pairs: direct or through English, architecture, download size, cached or not.
int cmd_models(const Args& a) {
  if (!a.positional.empty()) usage_error("models takes no argument, got '" + a.positional[0] + "'");
  tformer::cli::CatalogClient client(a.catalog);
  const tformer::catalog::Catalog catalog = client.catalog();
  const auto pairs = catalog.pairs();
  // --from and --to as translate takes them: language tags, each catalogue tag matched by best fit.
  auto fits = [](const std::string& asked, const std::string& tag) {
    if (asked.empty()) return true;
    try {
      return tformer::best_fit_language({tformer::canonical_language_tag(tag)}, tformer::canonical_language_tag(asked)).has_value();
    } catch (const tformer::Error&) {
      return tag == asked;
    }
  };
  if (!a.from.empty()) tformer::canonical_language_tag(a.from);  // not a tag: refused, naming it
  if (!a.to.empty()) tformer::canonical_language_tag(a.to);
  std::printf("%-6s %-6s %-10s %-16s %10s  %s\n", "from", "to", "route", "architecture", "download", "cached");
  for (const auto& p : pairs) {
    if (!fits(a.from, p.source) || !fits(a.to, p.target)) continue;
    std::printf("%-6s %-6s %-10s %-16s %10s  %s\n", p.source.c_str(), p.target.c_str(), p.pivot() ? "via en" : "direct",
                p.architecture().c_str(), size_text(p.download_bytes()).c_str(), client.cached(p) ? "yes" : "no");
  }
  std::printf("%zu pairs (%zu direct models) in %s\n", pairs.size(), catalog.models().size(), a.catalog.server.c_str());
  return 0;
}

double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_maxrss) / 1024.0;  // Linux reports KiB
}

// n-th best text of a paragraph: each sentence's n-th hypothesis (or its last one).
std::string nth_text(const tformer::Translation& t, size_t n, float* score) {
  std::string text;
  *score = 0.f;
  for (size_t s = 0; s < t.sentences.size(); ++s) {
    const auto& hyps = t.sentences[s].hypotheses;
    const auto& h = hyps[std::min(n, hyps.size() - 1)];
    if (s) text += " ";
    text += h.text;
    *score += h.score;
  }
  return text;
}

void write_translation(const Args& a, size_t index, const tformer::Translation& t) {
  if (a.alignment) {
    // Pieces may be bytes of a character SentencePiece split: replaced, not refused.
    std::cout << tformer::cli::alignment_json(t).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else if (a.options.confidence) {
    std::cout << tformer::cli::confidence_json(t).dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
  } else if (a.options.nbest > 1) {
    // A line without sentences (empty, blank) has one hypothesis, the empty one.
    const int n_hyps = t.sentences.empty() ? 1 : a.options.nbest;
    for (int n = 0; n < n_hyps; ++n) {
      float score;
      const std::string text = nth_text(t, size_t(n), &score);
      std::cout << index << " ||| " << text << " ||| " << score << "\n";
    }
  } else if (a.scores) {
    float score;
    const std::string text = nth_text(t, 0, &score);
    std::cout << score << "\t" << (a.options.html ? t.text : text) << "\n";
  } else {
    std::cout << t.text << "\n";
  }
}

// The engine's error, worded for the CLI's user: an error about one input text names its line
// (`first_line`: the line of the call's first text).
std::string cli_error(const tformer::Error& e, size_t first_line) {
  if (const auto input = e.input()) return tformer::cli::line_error(e, first_line + *input);
  return e.what();
}

// Translates stdin in batches of lines: memory stays bounded by one batch, and output appears as
// each batch is done. Lines that cannot be translated are skipped or stop the run (--on-error).
int cmd_translate(const Args& a) {
  if (a.model.empty() && !uses_catalog(a)) usage_error("translate needs -m MODEL (or --from SRC --to TGT)");
  if (!a.positional.empty()) usage_error("translate reads its text on stdin; unexpected argument '" + a.positional[0] + "'");
  Engine translator = load_engine(a);
  {
    tformer::TranslateOptions check = a.options;  // option errors before any input is read
    translator.translate({}, check);
  }
  std::optional<tformer::cli::MemoryFile> memory_file;
  std::shared_ptr<tformer::TranslationMemory> memory;
  if (a.memory) {
    memory_file.emplace(a.catalog.cache_dir);
    memory = memory_file->open();
    for (auto& model : translator.models) model->use_memory(memory);
  }
  // Saved however the run ends: what was translated is worth keeping.
  struct SaveMemory {
    const std::optional<tformer::cli::MemoryFile>& file;
    const std::shared_ptr<tformer::TranslationMemory>& memory;
    ~SaveMemory() {
      if (!memory) return;
      file->save(*memory);
      const tformer::TranslationMemoryStats s = memory->stats();
      std::cerr << "tformer: translation memory: " << s.hits << " of " << s.hits + s.misses
                << " sentences answered from it; " << s.entries << " entries in " << file->path() << "\n";
    }
  } save_memory{memory_file, memory};
  tformer::cli::LineReader reader(stdin, tformer::cli::max_line_bytes(a.options.max_input_chars));
  size_t skipped = 0, first_line = 1;
  std::vector<std::string> batch;
  std::vector<std::string> problems;  // per line of the batch: "" or why it cannot be translated
  bool end = false;
  while (!end) {
    batch.clear();
    problems.clear();
    std::string line;
    bool too_long = false;
    while (batch.size() < a.batch_lines && !(end = !reader.next(line, too_long))) {
      problems.push_back(tformer::cli::check_line(line, too_long, first_line + batch.size(), a.options.max_input_chars));
      batch.push_back(problems.back().empty() ? std::move(line) : std::string());
    }
    if (reader.error()) throw tformer::Error(std::string("cannot read standard input: ") + std::strerror(reader.error()));
    // --on-error stop: the lines before the first bad one are translated and written.
    size_t usable = batch.size();
    if (a.stop_on_error)
      for (size_t i = 0; i < problems.size(); ++i)
        if (!problems[i].empty()) {
          usable = i;
          break;
        }
    std::vector<tformer::Translation> out;
    const std::vector<std::string> texts(batch.begin(), batch.begin() + long(usable));
    try {
      out = translator.translate(texts, a.options);
    } catch (const tformer::Error& e) {
      if (a.stop_on_error) throw tformer::Error(e.code(), e.phase(), cli_error(e, first_line));
      // Find the line at fault: each on its own.
      out.assign(texts.size(), tformer::Translation{});
      for (size_t i = 0; i < texts.size(); ++i) {
        try {
          out[i] = translator.translate({texts[i]}, a.options).at(0);
        } catch (const tformer::Error& e1) {
          problems[i] = cli_error(e1, first_line + i);
        }
      }
    }
    for (size_t i = 0; i < out.size(); ++i) {
      if (!problems[i].empty()) {
        std::cout.flush();  // the messages appear next to the output they concern
        std::cerr << "tformer: error: " << tformer::printable(problems[i]) << "; its output line is left empty\n";
        ++skipped;
        write_translation(a, first_line - 1 + i, tformer::Translation{});
      } else {
        write_translation(a, first_line - 1 + i, out[i]);
      }
    }
    std::cout.flush();
    if (usable < batch.size()) throw tformer::Error(problems[usable]);
    first_line += batch.size();
  }
  if (skipped) {
    std::cerr << "tformer: " << skipped << " of " << (first_line - 1) << " lines could not be translated\n";
    return 1;
  }
  return 0;
}

// The translation memory of translate --memory: clear, or stats.
int cmd_memory(const Args& a) {
  if (a.positional.size() != 1 || (a.positional[0] != "clear" && a.positional[0] != "stats"))
    usage_error("memory needs one of: clear, stats");
  const tformer::cli::MemoryFile file(a.catalog.cache_dir);
  if (a.positional[0] == "clear") {
    std::cout << (file.clear() ? "removed " : "there is no translation memory at ") << file.path() << "\n";
    return 0;
  }
  const tformer::TranslationMemoryStats s = file.open()->stats();
  std::cout << file.path() << ": " << s.entries << " entries, " << s.bytes << " bytes\n";
  return 0;
}

// A confidence as the CLI writes it: enough digits to tell CLD2's percentages apart, no noise
// from the subtraction that gives "und" its share.
std::string confidence_text(double confidence) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", confidence);
  return text;
}

// Detects the language of each stdin line. A line that cannot be read (not valid UTF-8, over
// --max-chars) is skipped (an empty output line, a message, exit status 1) or stops the run.
int cmd_detect(const Args& a) {
  if (!a.model.empty()) usage_error("detect needs no model; unexpected -m");
  if (!a.positional.empty()) usage_error("detect reads its text on stdin; unexpected argument '" + a.positional[0] + "'");
  tformer::cli::LineReader reader(stdin, tformer::cli::max_line_bytes(a.options.max_input_chars));
  std::string line;
  bool too_long = false;
  size_t skipped = 0;
  while (reader.next(line, too_long)) {
    const size_t number = reader.lines_read();
    const std::string problem = tformer::cli::check_line(line, too_long, number, a.options.max_input_chars);
    if (!problem.empty()) {
      if (a.stop_on_error) {
        std::cout.flush();
        throw tformer::Error(problem);
      }
      std::cout << "\n";
      std::cout.flush();  // the message appears next to the output it concerns
      std::cerr << "tformer: error: " << problem << "; its output line is left empty\n";
      ++skipped;
      continue;
    }
    const std::vector<tformer::DetectedLanguage> ranked = tformer::ranked_languages(tformer::detect_language(line));
    const size_t shown = a.all_languages ? ranked.size() : 1;
    for (size_t i = 0; i < shown; ++i)
      std::cout << (i ? "\t" : "") << ranked[i].language << "\t" << confidence_text(ranked[i].confidence);
    std::cout << "\n";
  }
  if (reader.error()) throw tformer::Error(std::string("cannot read standard input: ") + std::strerror(reader.error()));
  if (skipped) {
    std::cerr << "tformer: " << skipped << " of " << reader.lines_read() << " lines could not be read\n";
    return 1;
  }
  return 0;
}

// What the import of a Marian model found, from its summary (tformer/marian.h).
void print_marian_summary(const tformer::MarianImport& m) {
  const nlohmann::json s = nlohmann::json::parse(m.summary_json);
  const auto& c = s["config"];
  auto list = [](const nlohmann::json& a) {
    std::string out;
    for (const auto& x : a) out += (out.empty() ? "" : ", ") + tformer::printable(x.is_string() ? x.get<std::string>() : x.dump());
    return out.empty() ? std::string("none") : out;
  };
  std::printf("marian:     %s (%s), imported in memory\n", tformer::printable(s["name"].get<std::string>()).c_str(),
              tformer::printable(s["model"].get<std::string>()).c_str());
  std::printf("variant:    %s; d_model %d, heads %d, ffn %d, %d+%d layers\n", s["variant"].get<std::string>().c_str(),
              c["d_model"].get<int>(), c["heads"].get<int>(), c["ffn_dim"].get<int>(), c["encoder_layers"].get<int>(),
              c["decoder_layers"].get<int>());
  std::printf("vocabs:     %s; sizes %s (%s, %s)\n", list(s["vocabs"]).c_str(), list(s["vocab_sizes"]).c_str(),
              s["tokenizer"].get<std::string>().c_str(), s["joint_vocab"].get<bool>() ? "joint" : "separate");
  std::printf("weights:    %s as stored; %s (%d int8 matrices, %d activation multipliers)\n",
              list(s["item_types"]).c_str(), s["weights"].get<std::string>().c_str(), s["quantized_matrices"].get<int>(),
              s["alphas"].get<int>());
  std::printf("ignored:    %s\n", list(s["ignored_options"]).c_str());
  std::printf("unknown:    %s\n", list(s["unknown_options"]).c_str());
  if (s["shortlist"].is_null()) {
    std::printf("shortlist:  none\n");
  } else {
    const auto& l = s["shortlist"];
    std::printf("shortlist:  %s: %llu source words, %llu (source, target) pairs, firstNum %llu, bestNum %llu "
                "(carried in the .tfm: each sentence scores only the target words it lists)\n",
                tformer::printable(l["file"].get<std::string>()).c_str(), l["source_words"].get<unsigned long long>(),
                l["candidates"].get<unsigned long long>(), l["first"].get<unsigned long long>(),
                l["best"].get<unsigned long long>());
  }
  std::printf("\n");
}

// Converts a Marian model to .tfm (the file models/tfm import-marian writes).
int cmd_convert(const Args& a) {
  if (!a.positional.empty() && !a.model.empty()) usage_error("convert takes FOLDER or -m FOLDER, not both");
  if (a.positional.size() > 1) usage_error("convert takes one model, got " + std::to_string(a.positional.size()));
  const std::string path = !a.positional.empty() ? a.positional[0] : a.model;
  if (path.empty()) usage_error("convert needs a Marian model FOLDER (or its model file)");
  if (a.output.empty()) usage_error("convert needs -o MODEL.tfm");
  if (!is_marian(path)) usage_error("'" + path + "' is a .tfm file already");
  const tformer::MarianImport m = import_marian_model(a, path);
  std::ofstream out(a.output, std::ios::binary);
  out.write(reinterpret_cast<const char*>(m.tfm.data()), std::streamsize(m.tfm.size()));
  out.close();
  if (!out) throw tformer::Error("cannot write '" + a.output + "'");
  const nlohmann::json s = nlohmann::json::parse(m.summary_json);
  std::printf("wrote %s (%zu bytes) from %s: %s, d_model %d, vocab %d, weights %s\n", a.output.c_str(), m.tfm.size(),
              tformer::printable(m.model_file).c_str(), s["variant"].get<std::string>().c_str(), s["config"]["d_model"].get<int>(),
              s["config"]["vocab_size"].get<int>(), s["weights"].get<std::string>().c_str());
  return 0;
}

int cmd_info(const Args& a) {
  if (!a.positional.empty() && !a.model.empty()) usage_error("info takes MODEL or -m MODEL, not both");
  if (a.positional.size() > 1) usage_error("info takes one model, got " + std::to_string(a.positional.size()));
  const std::string path = !a.positional.empty() ? a.positional[0] : a.model;
  if (path.empty()) usage_error("info needs MODEL (or -m MODEL)");
  std::unique_ptr<tformer::Translator> loaded;
  if (is_marian(path)) {
    const tformer::MarianImport m = import_marian_model(a, path);
    print_marian_summary(m);
    loaded = std::make_unique<tformer::Translator>(m.tfm);
  } else {
    loaded = std::make_unique<tformer::Translator>(path);
  }
  tformer::Translator& translator = *loaded;
  const tformer::ModelInfo& info = translator.info();
  std::printf("model:      %s (%.2f MB)\n", path.c_str(), double(info.file_bytes) / 1e6);
  std::printf("shape:      d_model %d, heads %d, ffn %d, encoder %d layers, decoder %d layers, vocab %d\n",
              info.d_model, info.heads, info.ffn_dim, info.encoder_layers, info.decoder_layers, info.vocab_size);
  std::printf("parameters: %llu\n", static_cast<unsigned long long>(info.parameters));
  // One line per field (the files hold them as JSON): readable, and easy to grep.
  std::printf("config:\n%s", tformer::cli::readable_json(nlohmann::json::parse(info.config_json)).c_str());
  std::printf("metadata:\n%s", tformer::cli::readable_json(nlohmann::json::parse(info.metadata_json)).c_str());
  std::map<std::string, std::pair<size_t, uint64_t>> by_dtype;  // tensors, bytes
  uint64_t total = 0;
  for (const auto& t : info.tensors) {
    by_dtype[t.dtype].first += 1;
    by_dtype[t.dtype].second += t.bytes;
    total += t.bytes;
  }
  std::printf("bytes by dtype:");
  for (const auto& [dtype, n] : by_dtype) std::printf(" %s %.2f MB;", dtype.c_str(), double(n.second) / 1e6);
  std::printf("\n");
  for (const auto& [dtype, n] : by_dtype)
    std::printf("  %-4s %5zu tensors %12llu bytes (%5.1f%%)\n", dtype.c_str(), n.first,
                static_cast<unsigned long long>(n.second), total ? 100.0 * double(n.second) / double(total) : 0.0);
  std::printf("  all  %5zu tensors %12llu bytes\n", info.tensors.size(), static_cast<unsigned long long>(total));
  std::printf("\n%-48s %-5s %-18s %12s\n", "tensor", "dtype", "shape", "bytes");
  for (const auto& t : info.tensors) {
    std::string shape;
    for (size_t i = 0; i < t.shape.size(); ++i) shape += (i ? "x" : "") + std::to_string(t.shape[i]);
    std::printf("%-48s %-5s %-18s %12llu\n", t.name.c_str(), t.dtype.c_str(), shape.c_str(),
                static_cast<unsigned long long>(t.bytes));
  }
  return 0;
}

int cmd_bench(const Args& a) {
  if ((a.model.empty() && !uses_catalog(a)) || a.input.empty()) usage_error("bench needs -m MODEL (or --from SRC --to TGT) and -i FILE");
  std::ifstream in(a.input);
  if (!in) throw tformer::Error("cannot open input file '" + a.input + "'");
  std::vector<std::string> lines = read_lines(in);
  lines.erase(std::remove_if(lines.begin(), lines.end(), [](const std::string& l) { return l.empty(); }), lines.end());
  if (lines.empty()) throw tformer::Error("input file '" + a.input + "' has no non-empty lines");

  auto t0 = Clock::now();
  Engine translator = load_engine(a);
  const std::string model_name = uses_catalog(a) ? a.from + "->" + a.to + (translator.pivot ? " (through en)" : "") : a.model;
  const double load_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();

  // Warm-up on a few sentences (first-touch allocations, caches).
  translator.translate({lines.begin(), lines.begin() + long(std::min<size_t>(4, lines.size()))}, a.options);

  tformer::profile::take();  // drops what the warm-up counted
  tformer::profile::enable(a.profile);
  t0 = Clock::now();
  const auto out = translator.translate(lines, a.options);
  const double batch_s = std::chrono::duration<double>(Clock::now() - t0).count();
  tformer::profile::enable(false);
  const std::vector<tformer::profile::PhaseTime> phases = tformer::profile::take();
  size_t target_tokens = 0, sentences = 0;
  for (const auto& t : out)
    for (const auto& s : t.sentences) {
      target_tokens += s.hypotheses[0].tokens.size();
      ++sentences;
    }

  // Latency: one request per line, as an interactive page would send them.
  const size_t latency_lines = std::min<size_t>(lines.size(), 100);
  std::vector<double> latencies;
  for (size_t i = 0; i < latency_lines; ++i) {
    const auto s = Clock::now();
    translator.translate({lines[i]}, a.options);
    latencies.push_back(std::chrono::duration<double, std::milli>(Clock::now() - s).count());
  }
  std::sort(latencies.begin(), latencies.end());
  const double median_ms = latencies[latencies.size() / 2];
  const double p90_ms = latencies[std::min(latencies.size() - 1, latencies.size() * 9 / 10)];

  std::printf("model %s, kernels %s, %d thread(s), beam %d\n", model_name.c_str(),
              translator.models[0]->kernels_name().c_str(), translator.models[0]->threads(), a.options.beam_size);
  std::printf("load:        %.1f ms\n", load_ms);
  std::printf("batch:       %zu lines (%zu sentences) in %.3f s: %.1f sentences/s, %.1f target tokens/s, %.2f ms/sentence\n",
              lines.size(), sentences, batch_s, double(sentences) / batch_s, double(target_tokens) / batch_s,
              1000.0 * batch_s / double(sentences));
  std::printf("latency:     %zu single-line requests: median %.2f ms, p90 %.2f ms\n", latency_lines, median_ms, p90_ms);
  std::printf("peak memory: %.1f MB (resident)\n", peak_rss_mb());
  double timed_ms = 0;
  for (const auto& p : phases) timed_ms += p.ms;
  const double batch_ms = 1000.0 * batch_s;
  if (a.profile) {
    std::printf("profile of the batch (%.1f ms):\n", batch_ms);
    for (const auto& p : phases)
      std::printf("  %-26s %9.1f ms %5.1f%%\n", p.name, p.ms, 100.0 * p.ms / batch_ms);
    std::printf("  %-26s %9.1f ms %5.1f%%\n", "rest", batch_ms - timed_ms, 100.0 * (batch_ms - timed_ms) / batch_ms);
  }
  if (!a.json.empty()) {
    std::ofstream js(a.json);
    js << "{\"model\":\"" << model_name << "\",\"kernels\":\"" << translator.models[0]->kernels_name()
       << "\",\"threads\":" << translator.models[0]->threads() << ",\"beam\":" << a.options.beam_size
       << ",\"lines\":" << lines.size() << ",\"sentences\":" << sentences << ",\"target_tokens\":" << target_tokens
       << ",\"seconds\":" << batch_s << ",\"sentences_per_s\":" << double(sentences) / batch_s
       << ",\"tokens_per_s\":" << double(target_tokens) / batch_s << ",\"ms_per_sentence\":" << 1000.0 * batch_s / double(sentences)
       << ",\"latency_median_ms\":" << median_ms << ",\"latency_p90_ms\":" << p90_ms << ",\"load_ms\":" << load_ms
       << ",\"peak_rss_mb\":" << peak_rss_mb();
    if (a.profile) {
      js << ",\"profile_ms\":{";
      for (const auto& p : phases) js << "\"" << p.name << "\":" << p.ms << ",";
      js << "\"rest\":" << batch_ms - timed_ms << "}";
    }
    js << "}\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  Args a = parse(argc, argv);
  try {
    if (!a.glossary.empty()) a.options.glossary = tformer::read_glossary_file(a.glossary);
    if (a.command == "translate") return cmd_translate(a);
    if (a.command == "info") return cmd_info(a);
    if (a.command == "convert") return cmd_convert(a);
    if (a.command == "bench") return cmd_bench(a);
    if (a.command == "models") return cmd_models(a);
    if (a.command == "detect") return cmd_detect(a);
    if (a.command == "memory") return cmd_memory(a);
    if (a.command == "-h" || a.command == "--help" || a.command == "help") {
      std::cout << usage();
      return 0;
    }
    if (a.command == "--version" || a.command == "version") {
      std::cout << "tformer " << TFORMER_VERSION << "\n";
      return 0;
    }
    usage_error("unknown command '" + a.command + "'");
  } catch (const tformer::Error& e) {
    std::cerr << "tformer: error: " << tformer::printable(e.what()) << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "tformer: internal error: " << tformer::printable(e.what()) << "\n";
    return 1;
  }
}
