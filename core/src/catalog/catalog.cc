// Which files make each language pair, as Firefox's TranslationsParent chooses them:
//  1. records the channel does not see (filter_expression) are dropped, and those of a file type a
//     translator never reads (qualityModel, unknown types);
//  2. per file name and pair the newest version is kept (getMaxSupportedVersionRecords, keyed by
//     name + pair + variant);
//  3. per pair, only the files of the model file's version are kept (#filterByModelVersion: an
//     older shared vocab left beside a newer split-vocab model is not used);
//  4. a pair needs model and vocab, or srcvocab and trgvocab (not both kinds); lex is taken where
//     present (Firefox takes it when its useLexicalShortlist preference is on; the engine always
//     can use it, and --no-shortlist turns it off);
//  5. a pair without a direct model goes through English (getRecordsForTranslatingToAndFromPair).
// Two differences, on purpose: Firefox also keeps only the major versions its bundled engine reads
// (3.x today); this engine imports any Marian model, so any version is a candidate. And records
// with a variant are left out, as Firefox leaves them out unless a variant is asked for.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "tformer/catalog.h"
#include "tformer/language_tags.h"

namespace tformer::catalog {
namespace {

Error catalog_error(const std::string& detail) {
  return Error(ErrorCode::kInvalidCatalog, Phase::kCatalog, detail);
}

bool is_used_file_type(const std::string& t) {
  return t == "model" || t == "vocab" || t == "srcvocab" || t == "trgvocab" || t == "lex";
}

int file_order(const std::string& t) {
  static const char* order[] = {"model", "vocab", "srcvocab", "trgvocab", "lex"};
  for (int i = 0; i < 5; ++i)
    if (t == order[i]) return i;
  return 5;
}

// The pair's model from its chosen records; false (and `why`) when they do not make a translator.
bool make_model(const std::string& source, const std::string& target, std::vector<Record> files, Model* model,
                std::string* why) {
  const Record* model_file = nullptr;
  std::map<std::string, int> count;
  for (const auto& f : files) {
    ++count[f.file_type];
    if (f.file_type == "model") model_file = &f;
  }
  if (!model_file) {
    *why = "it has no model file";
    return false;
  }
  for (const auto& [type, n] : count)
    if (n > 1) {
      *why = "it has " + std::to_string(n) + " " + type + " files of version " + model_file->version;
      return false;
    }
  const bool shared = count.count("vocab") > 0, split = count.count("srcvocab") && count.count("trgvocab");
  if (shared && (count.count("srcvocab") || count.count("trgvocab"))) {
    *why = "it has both a vocab and a srcvocab/trgvocab file";
    return false;
  }
  if (!shared && !split) {
    *why = "it has no vocab (or srcvocab and trgvocab) file";
    return false;
  }
  model->source = source;
  model->target = target;
  model->architecture = model_file->architecture;
  model->version = model_file->version;
  std::stable_sort(files.begin(), files.end(),
                   [](const Record& a, const Record& b) { return file_order(a.file_type) < file_order(b.file_type); });
  model->files = std::move(files);
  return true;
}

}  // namespace

uint64_t Model::download_bytes() const {
  uint64_t n = 0;
  for (const auto& f : files) n += f.attachment.size;
  return n;
}

uint64_t Model::decompressed_bytes() const {
  uint64_t n = 0;
  for (const auto& f : files) n += f.decompressed_size;
  return n;
}

uint64_t Plan::download_bytes() const {
  uint64_t n = 0;
  for (const auto& m : steps) n += m.download_bytes();
  return n;
}

std::string Plan::architecture() const {
  std::string a;
  for (const auto& m : steps) {
    const std::string name = m.architecture.empty() ? "unknown" : m.architecture;
    if (a.empty()) a = name;
    else if (a != name) a += "+" + name;
  }
  return a;
}

Catalog::Catalog(const std::vector<Record>& records, const Options& options) {
  // 1 and 2: the newest visible version of each file name of each pair.
  std::map<std::tuple<std::string, std::string, std::string>, const Record*> newest;
  for (const auto& r : records) {
    if (!is_used_file_type(r.file_type) || !r.variant.empty()) continue;
    if (!options.architecture.empty() && r.architecture != options.architecture) continue;
    if (!visible(r.filter_expression, options.channel)) continue;
    const Record*& best = newest[{r.source, r.target, r.name}];
    if (!best || compare_versions(best->version, r.version) < 0) best = &r;
  }
  // 3: per pair, the files of the model's version.
  std::map<std::pair<std::string, std::string>, std::vector<Record>> by_pair;
  for (const auto& [key, r] : newest) by_pair[{std::get<0>(key), std::get<1>(key)}].push_back(*r);
  for (auto& [pair, files] : by_pair) {
    // Model files of several names (a renamed model): the newest one's version decides.
    std::string model_version;
    for (const auto& f : files)
      if (f.file_type == "model" && (model_version.empty() || compare_versions(model_version, f.version) < 0))
        model_version = f.version;
    std::vector<Record> chosen;
    for (const auto& f : files)
      if (model_version.empty() || f.version == model_version) chosen.push_back(f);
    Model m;
    std::string why;
    if (make_model(pair.first, pair.second, std::move(chosen), &m, &why)) models_.push_back(std::move(m));
    else refused_.push_back(pair.first + "->" + pair.second + " (" + why + ")");
  }
}

const Model* Catalog::find(const std::string& source, const std::string& target) const {
  for (const auto& m : models_)
    if (m.source == source && m.target == target) return &m;
  return nullptr;
}

Plan Catalog::plan_of(const std::string& source, const std::string& target) const {
  Plan p;
  p.source = source;
  p.target = target;
  if (const Model* direct = find(source, target)) {
    p.steps.push_back(*direct);
    return p;
  }
  const Model* first = source == kPivotLanguage ? nullptr : find(source, kPivotLanguage);
  const Model* second = target == kPivotLanguage ? nullptr : find(kPivotLanguage, target);
  if (first && second) {
    p.steps.push_back(*first);
    p.steps.push_back(*second);
    return p;
  }
  std::string missing;
  if (source == kPivotLanguage || target == kPivotLanguage) {
    missing = "no " + source + "->" + target + " model";
  } else {
    missing = "no " + source + "->" + target + " model, and no way through " + kPivotLanguage + " (";
    if (!first) missing += "no " + source + "->" + kPivotLanguage + " model";
    if (!first && !second) missing += ", ";
    if (!second) missing += "no " + std::string(kPivotLanguage) + "->" + target + " model";
    missing += ")";
  }
  std::string refused;
  for (const auto& r : refused_)
    if (r.rfind(source + "->", 0) == 0 || r.find("->" + target + " (") != std::string::npos)
      refused += (refused.empty() ? "; its records for " : ", ") + r;
  throw catalog_error("the catalogue cannot translate " + source + " to " + target + ": " + missing + refused);
}

namespace {

// A catalogue's tag in canonical form, or "" for one that is not a language tag.
std::string canonical_or_empty(const std::string& tag) {
  try {
    return canonical_language_tag(tag);
  } catch (const Error&) {
    return "";
  }
}

// The catalogue's tag among `tags` (its own) that best fits `requested` (canonical), or "".
std::string fitting(const std::set<std::string>& tags, const std::string& requested) {
  std::vector<std::string> canonical;
  std::map<std::string, std::string> own;
  for (const auto& t : tags) {
    const std::string c = canonical_or_empty(t);
    if (c.empty() || own.count(c)) continue;
    canonical.push_back(c);
    own[c] = t;
  }
  const std::optional<std::string> fit = best_fit_language(canonical, requested);
  return fit ? own[*fit] : "";
}

}  // namespace

Plan Catalog::plan(const std::string& source, const std::string& target) const {
  if (source.empty() || target.empty()) throw catalog_error("a pair needs a source and a target language");
  if (find(source, target)) return plan_of(source, target);
  const std::string from = canonical_language_tag(source), to = canonical_language_tag(target);
  if (best_fit_language({from}, to) || best_fit_language({to}, from))
    throw catalog_error("the source and target languages are the same ('" + from + "', '" + to + "')");
  const std::vector<Plan> all = pairs();
  std::set<std::string> sources;
  for (const auto& p : all) sources.insert(p.source);
  const std::string fitted_source = fitting(sources, from);
  std::set<std::string> targets;
  for (const auto& p : all)
    if (p.source == fitted_source) targets.insert(p.target);
  const std::string fitted_target = fitting(targets, to);
  if (!fitted_source.empty() && !fitted_target.empty()) return plan_of(fitted_source, fitted_target);
  // No pair: why, as the catalogue's models tell it, and the pairs nearest to the one asked for
  // (from the same source language, then into the same target language).
  std::string why;
  try {
    plan_of(fitted_source.empty() ? from : fitted_source, fitted_target.empty() ? to : fitted_target);
  } catch (const Error& e) {
    why = e.detail();
  }
  std::vector<std::string> nearest;
  std::set<std::string> all_targets;
  for (const auto& p : all) all_targets.insert(p.target);
  const std::string into = fitting(all_targets, to);
  for (const auto& p : all)
    if (p.source == fitted_source) nearest.push_back(p.source + "->" + p.target);
  for (const auto& p : all)
    if (p.target == into && p.source != fitted_source) nearest.push_back(p.source + "->" + p.target);
  constexpr size_t kShown = 8;
  std::string listed;
  for (size_t i = 0; i < nearest.size() && i < kShown; ++i) listed += (i ? ", " : "") + nearest[i];
  if (nearest.size() > kShown) listed += " and " + std::to_string(nearest.size() - kShown) + " more";
  if (!listed.empty()) {
    why += "; the nearest pairs it has: " + listed;
  } else {
    std::string languages;
    for (const auto& s : sources) languages += (languages.empty() ? "" : ", ") + s;
    why += all.empty() ? "; it has no pairs" : "; it translates from " + languages + " only";
  }
  throw catalog_error(why);
}

std::vector<Plan> Catalog::pairs() const {
  std::set<std::string> sources, targets;
  for (const auto& m : models_) {
    sources.insert(m.source);
    targets.insert(m.target);
  }
  std::vector<Plan> out;
  for (const auto& s : sources) {
    for (const auto& t : targets) {
      if (s == t) continue;
      try {
        out.push_back(plan_of(s, t));
      } catch (const Error&) {
      }
    }
  }
  return out;  // a pivot pair's source has a model into English and its target one out of it
}

}  // namespace tformer::catalog
