#include "marian/discover.h"

#include <algorithm>
#include <cctype>

#include "marian/yaml.h"
#include "tformer/error.h"
#include "util/printable.h"

namespace tformer::marian {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }
std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
// A name as the folder knows it: a path's last component, without .gz.
std::string file_name(const std::string& path) {
  const size_t slash = path.find_last_of("/\\");
  std::string n = slash == std::string::npos ? path : path.substr(slash + 1);
  if (n.size() > 3 && ends_with(lower(n), ".gz")) n.resize(n.size() - 3);
  return n;
}
std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + printable(v[i]);
  return s;
}
// A name decoder.yml lists (a relative path in Marian's files).
std::string listed_name(const Json& v, const char* what) {
  if (!v.is_string()) throw Error(std::string(what) + " lists " + printable(v.dump()) + ", not a file name");
  return file_name(v.get<std::string>());
}

// Firefox Translations folders also hold a lexical shortlist (lex.*.s2t.bin) and maybe a quality
// model (qualityModel.*.bin): not translation models.
std::string find_model(Folder& folder) {
  std::vector<std::string> candidates;
  for (auto& c : folder.find({"*.npz", "*.bin"})) {
    if (!starts_with(c, "lex.") && !starts_with(c, "qualityModel") && c.find(".s2t.") == std::string::npos) {
      candidates.push_back(c);
    }
  }
  const bool any_model = std::any_of(candidates.begin(), candidates.end(), [](auto& c) { return starts_with(c, "model"); });
  if (candidates.size() > 1 && any_model) {
    candidates.erase(std::remove_if(candidates.begin(), candidates.end(), [](auto& c) { return !starts_with(c, "model"); }),
                     candidates.end());
  }
  if (candidates.empty()) throw Error("the folder holds no Marian model (*.npz or *.bin)");
  if (candidates.size() > 1) throw Error("the folder holds several models (" + joined(candidates) + "); name one with --model");
  return candidates[0];
}

std::vector<std::string> find_vocabs(Folder& folder) {
  const auto yml = folder.find({"*.vocab.yml", "*.vocab.yaml", "vocab*.yml"});
  const auto spm = folder.find({"vocab*.spm", "*.vocab.spm"});
  const auto src = folder.find({"srcvocab*.spm", "*.src.vocab.yml", "src*.vocab.yml"});
  const auto trg = folder.find({"trgvocab*.spm", "*.trg.vocab.yml", "trg*.vocab.yml"});
  if (!src.empty() && !trg.empty()) return {src[0], trg[0]};
  if (yml.size() == 1) return {yml[0], yml[0]};
  if (spm.size() == 1) return {spm[0], spm[0]};
  if (!yml.empty() || !spm.empty()) {
    std::vector<std::string> all = yml;
    all.insert(all.end(), spm.begin(), spm.end());
    throw Error("the folder holds several vocabularies (" + joined(all) + "); name them with --vocabs SRC [TRG]");
  }
  throw Error("the folder holds no vocabulary (expected *.vocab.yml with source.spm/target.spm as OPUS-MT "
              "ships them, or vocab.*.spm as Firefox Translations does)");
}

}  // namespace

ModelFiles discover(Folder& folder, const MarianImportOptions& opt) {
  ModelFiles f;
  Json decoder = Json::object();  // which model and vocabularies Marian's decoder config names
  for (const char* name : {"decoder.yml", "config.yml", "config.intgemm8bitalpha.yml"}) {
    if (folder.has(name)) {
      decoder = parse_options(folder.text(name, FileKind::kOptions), name);
      break;
    }
  }
  auto listed = [&](const char* key) { return decoder.contains(key) ? decoder[key] : Json(); };
  auto given = [](const Json& v) { return !v.is_null() && !(v.is_string() && v.get<std::string>().empty()) && !(v.is_array() && v.empty()); };

  f.model = file_name(opt.model);
  if (f.model.empty()) {
    const Json models = listed("models");
    if (given(models)) {
      f.model = listed_name(models.is_array() ? models[0] : models, "decoder.yml: models");
    } else {
      f.model = find_model(folder);
    }
  }
  if (!folder.has(f.model)) throw Error("Marian model " + printable(f.model) + " is missing");

  std::vector<std::string> vocabs;
  for (const auto& v : opt.vocabs) vocabs.push_back(file_name(v));
  if (vocabs.empty()) {
    const Json listed_vocabs = listed("vocabs");
    if (!given(listed_vocabs)) {
      vocabs = find_vocabs(folder);
    } else if (listed_vocabs.is_array()) {
      for (const auto& v : listed_vocabs) vocabs.push_back(listed_name(v, "decoder.yml: vocabs"));
    } else {
      throw Error("decoder.yml: vocabs is " + printable(listed_vocabs.dump()) + ", not a list of files");
    }
  }
  if (vocabs.size() == 1) vocabs.push_back(vocabs[0]);
  if (vocabs.size() != 2) {
    throw Error("a translation model needs 2 vocabularies (source, target), got " + std::to_string(vocabs.size()));
  }
  for (const auto& v : vocabs) {
    if (!folder.has(v)) throw Error("vocabulary " + printable(v) + " is missing");
  }
  for (size_t i = 0; i < 2; ++i) {
    const std::string name = lower(vocabs[i]);
    const char* side = i == 0 ? "source" : "target";
    if (ends_with(name, ".yml") || ends_with(name, ".yaml") || ends_with(name, ".json")) {
      const std::string spm = opt.spms.empty() ? (i == 0 ? "source.spm" : "target.spm")
                                               : file_name(opt.spms[std::min(i, opt.spms.size() - 1)]);
      if (!folder.has(spm)) {
        throw Error(printable(vocabs[i]) + " maps SentencePiece pieces to ids, but the " + side +
                    " SentencePiece model " + printable(spm) +
                    " is missing (OPUS-MT ships source.spm and target.spm; or give --spm SRC [TRG])");
      }
      f.sides[i] = {spm, vocabs[i]};
    } else if (ends_with(name, ".spm") || ends_with(name, ".model")) {
      f.sides[i] = {vocabs[i], ""};
    } else {
      throw Error("vocabulary " + printable(vocabs[i]) + ": expected a .yml table or a SentencePiece .spm model");
    }
  }
  f.shortlists = folder.find({"lex.*", "*.s2t.*"});
  if (!opt.config.empty()) {
    f.config = file_name(opt.config);
    if (!folder.has(f.config)) throw Error("options file " + printable(f.config) + " is missing");
  }
  return f;
}

}  // namespace tformer::marian
