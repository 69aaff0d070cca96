#include "marian/model.h"

#include <cctype>

#include "marian/bin.h"
#include "marian/npz.h"
#include "tformer/error.h"
#include "util/printable.h"

namespace tformer::marian {
namespace {

bool ends_with_lower(const std::string& s, const char* suffix) {
  const std::string x(suffix);
  if (s.size() < x.size()) return false;
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(s[s.size() - x.size() + i])) != x[i]) return false;
  }
  return true;
}

std::vector<MarianItem> read_items(Folder& folder, const std::string& name, const std::string& what) {
  const MarianBytes b = folder.bytes(name, FileKind::kModel);
  if (ends_with_lower(name, ".npz")) return read_npz(b.data, b.size, limit_of(FileKind::kModel), what);
  if (ends_with_lower(name, ".bin")) return parse_bin(b.data, b.size, what);
  throw Error(what + ": a Marian model must be a .npz or .bin file");
}

Json model_options(Folder& folder, const ModelFiles& files, const MarianModel& m) {
  if (!files.config.empty()) return parse_options(folder.text(files.config, FileKind::kOptions), printable(files.config));
  const MarianItem* yml = m.item(kModelYml);
  if (!yml) {
    throw Error(m.what + " has no " + kModelYml + " item (the architecture); give the model's options with "
                "--config FILE (the training config.yml)");
  }
  const std::string text = item_text(*yml);
  if (text.size() > limit_of(FileKind::kOptions)) {
    throw Error(m.what + ":" + kModelYml + ": " + std::to_string(text.size()) + " bytes of options, more than " +
                size_text(limit_of(FileKind::kOptions)));
  }
  return parse_options(text, m.what + ":" + kModelYml);
}

}  // namespace

MarianModel read_model(Folder& folder, ModelFiles files) {
  const std::string what = printable(files.model);
  std::vector<MarianItem> items = read_items(folder, files.model, what);
  MarianModel m{std::move(files), what, std::move(items), {}, MarianOptions(Json::object(), what), {}, {}};
  for (size_t i = 0; i < m.items.size(); ++i) m.by_name[m.items[i].name] = i;
  const std::string options_what = m.files.config.empty() ? what : printable(m.files.config);
  m.options = MarianOptions(model_options(folder, m.files, m), options_what);
  m.src = read_vocab(folder, m.files.sides[0].spm, m.files.sides[0].table);
  const ModelFiles::Side &src = m.files.sides[0], &tgt = m.files.sides[1];
  m.tgt = src.spm == tgt.spm && src.table == tgt.table ? m.src : read_vocab(folder, tgt.spm, tgt.table);
  return m;
}

}  // namespace tformer::marian
