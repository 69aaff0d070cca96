// Which files of a folder make the model: the model file, each side's vocabulary, the options file
// and the lexical shortlist (models/MARIAN-IMPORT.md). Names given in MarianImportOptions win;
// then decoder.yml's `models` and `vocabs`; then the names OPUS-MT and Firefox Translations use.
#pragma once

#include <string>
#include <vector>

#include "marian/folder.h"
#include "tformer/marian.h"

namespace tformer::marian {

struct ModelFiles {
  std::string model;
  struct Side {
    std::string spm;    // the SentencePiece model
    std::string table;  // a .yml id table, or empty (SentencePiece ids)
  };
  Side sides[2];                        // source, target
  std::string config;                   // --config: the model's options, or empty
  std::vector<std::string> shortlists;  // candidates, in order (lex.*, *.s2t.*)
};

ModelFiles discover(Folder& folder, const MarianImportOptions& options);

}  // namespace tformer::marian
