// One side's vocabulary as Marian sees it: a SentencePiece model, and for a .yml vocabulary the
// explicit id -> piece table (OPUS-MT), whose ids then replace SentencePiece's.
#pragma once

#include <string>
#include <vector>

#include "marian/folder.h"

namespace tformer::marian {

struct Vocab {
  std::string spm_name, table_name;  // table_name empty: SentencePiece ids
  std::string spm_bytes;
  std::vector<std::string> table;  // the .yml table's pieces by id
  size_t piece_count = 0;          // the SentencePiece model's pieces
  int eos_id = 0, unk_id = 0;

  bool has_table() const { return !table_name.empty(); }
  size_t size() const { return has_table() ? table.size() : piece_count; }
  bool same_as(const Vocab& o) const { return spm_bytes == o.spm_bytes && table == o.table; }
};

// Reads and checks both files: the SentencePiece model (check_sentencepiece_model, then
// SentencePiece itself) and the table, which must list </s> and <unk> as Marian requires.
Vocab read_vocab(Folder& folder, const std::string& spm, const std::string& table);

}  // namespace tformer::marian
