#include "marian/vocab.h"

#include <sentencepiece_processor.h>

#include "marian/yaml.h"
#include "tformer/error.h"
#include "text/sentencepiece_check.h"
#include "util/printable.h"

namespace sentencepiece::logging {
void SetMinLogLevel(int level);  // in the library, not in its public header
}

namespace tformer::marian {

Vocab read_vocab(Folder& folder, const std::string& spm, const std::string& table) {
  Vocab v;
  v.spm_name = spm;
  v.table_name = table;
  v.spm_bytes = folder.text(spm, FileKind::kSentencePiece);
  const std::string spm_what = printable(spm);
  sentencepiece::logging::SetMinLogLevel(1);  // no INFO lines on stderr of a library user
  sentencepiece::SentencePieceProcessor sp;
  load_sentencepiece(sp, v.spm_bytes, spm_what);
  if (!table.empty()) {
    const std::string what = printable(table);
    v.table = read_vocab_yml(folder.text(table, FileKind::kVocabularyTable), what);
    int eos = -1, unk = -1;
    for (size_t i = 0; i < v.table.size(); ++i) {
      if (v.table[i] == "</s>") eos = int(i);
      if (v.table[i] == "<unk>") unk = int(i);
    }
    if (eos < 0) throw Error(what + ": the vocabulary has no </s> entry (Marian requires it)");
    if (unk < 0) throw Error(what + ": the vocabulary has no <unk> entry (Marian requires it)");
    v.eos_id = eos;
    v.unk_id = unk;
  } else {
    v.piece_count = static_cast<size_t>(sp.GetPieceSize());
    v.eos_id = sp.PieceToId("</s>");
    v.unk_id = sp.unk_id();
    if (v.eos_id == v.unk_id) throw Error(spm_what + ": the SentencePiece model has no </s> piece (Marian requires it)");
  }
  return v;
}

}  // namespace tformer::marian
