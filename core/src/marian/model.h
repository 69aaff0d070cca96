// The read step of an import: the model's items, its options and both vocabularies, as the files
// hold them (checked as files, not yet against each other).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "marian/discover.h"
#include "marian/folder.h"
#include "marian/items.h"
#include "marian/options.h"
#include "marian/vocab.h"

namespace tformer::marian {

struct MarianModel {
  ModelFiles files;
  std::string what;               // the model file's name, as messages show it
  std::vector<MarianItem> items;  // in file order
  std::map<std::string, size_t> by_name;
  MarianOptions options;
  Vocab src, tgt;

  const MarianItem* item(const std::string& name) const {
    auto it = by_name.find(name);
    return it == by_name.end() ? nullptr : &items[it->second];
  }
};

// The options come from `files.config` (--config) when given, else from the model's
// special:model.yml item.
MarianModel read_model(Folder& folder, ModelFiles files);

}  // namespace tformer::marian
