// Marian models as downloaded (Firefox Translations, OPUS-MT) -> a .tfm image, in memory.
//
// The importer takes the files of a model folder as (name, bytes) pairs, so that it needs no file
// system (the wasm build gets them from URLs, ArrayBuffers or Files), and returns the bytes of the
// .tfm file that `models/tfm import-marian` (models/tformer/marian.py) writes for the same folder:
// the same rules decide what converts, what is refused (a tformer::Error naming the option, file or
// parameter) and what draws a warning (models/MARIAN-IMPORT.md).
//
//   std::vector<tformer::MarianFile> files = ...;          // every file of the folder, by name
//   tformer::MarianImport m = tformer::import_marian(files);
//   tformer::Translator t(std::move(m.tfm));               // translate directly, or
//   write m.tfm to model.tfm                               // convert once
//
// Files read: the model (`*.npz`, or `*.bin`: float32, intgemm8 with `*_QuantMultA` alphas),
// `decoder.yml` / `config.yml` (which model and vocabularies), the vocabularies (`vocab.*.spm`,
// `srcvocab.*.spm` + `trgvocab.*.spm`, or `*.vocab.yml` tables with `source.spm` / `target.spm`)
// and the lexical shortlist `lex.*.s2t.bin` (checked and carried in the .tfm). A name ending in
// `.gz` is a gzip copy: it is decompressed and then known by its name without `.gz`. Other files
// (README, LICENSE, ...) are ignored.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tformer/error.h"

namespace tformer {

// One file of a model folder: its name in the folder (a path's last component; any folder part is
// ignored) and its whole content.
struct MarianFile {
  std::string name;
  std::vector<uint8_t> bytes;
};

struct MarianImportOptions {
  // How matrices are stored in the .tfm: "keep" (float32 stays f32, intgemm8 becomes i8 with its
  // row scales), or "f32", "f16", "int8" for all of them (as `models/tfm import-marian --weights`).
  std::string weights = "keep";
  // The model file when the folder holds several (else found as marian.py finds it).
  std::string model;
  // Source and target vocabularies (one name: both), .yml tables or .spm models; empty: found.
  std::vector<std::string> vocabs;
  // SentencePiece models for .yml vocabularies (default source.spm, target.spm).
  std::vector<std::string> spms;
  // A file of Marian options (the training config.yml) for a model without special:model.yml.
  std::string config;
  // Longest sequence the engine handles in one piece (config max_positions).
  int max_positions = 512;
  // The model's name in the .tfm metadata; empty: the model file's name without its extension.
  std::string name;
};

// The lexical shortlist of a Firefox Translations folder (marian-dev's binary shortlist), as read
// and checked. The .tfm carries it (the u8 tensor "shortlist"), and the engine scores only the
// target words it lists for a sentence (core/src/decoding/shortlist.h).
struct MarianShortlist {
  std::string file;
  uint64_t first = 0, best = 0;  // Marian's firstNum (most frequent target words kept) and bestNum
  uint64_t source_words = 0;     // source words with a list (the source vocabulary's size)
  uint64_t candidates = 0;       // (source word, target word) pairs listed in all
};

struct MarianImport {
  std::vector<uint8_t> tfm;   // the .tfm file
  std::string name;           // metadata name
  std::string model_file;     // the model file read (name in the folder)
  // What was imported, as JSON: {"name", "model", "vocabs", "vocab_sizes", "config" (the .tfm
  // config), "variant" (e.g. "transformer decoder, post-norm, relu, tied all"), "tokenizer",
  // "item_types", "quantized_matrices", "alphas", "ignored_options", "unknown_options",
  // "shortlist" (object or null), "warnings"}.
  std::string summary_json;
  std::vector<std::string> warnings;  // what marian.py prints as "warning: ..."
  bool has_shortlist = false;
  MarianShortlist shortlist;
};

// Converts; throws tformer::Error (phase kImport, code kInvalidModel; the detail names the file,
// the option or the parameter at fault) for a model the engine cannot run or a file that is not
// what its name says.
MarianImport import_marian(const std::vector<MarianFile>& files, const MarianImportOptions& options = {});

// Whether `name` is a file an import reads (model, options, vocabulary, shortlist, or a .gz copy of
// one): lets a caller with a whole folder skip the rest before reading it.
bool is_marian_input(const std::string& name);

// gzip: the decompressed content of a .gz file (any input); throws tformer::Error naming `what`
// when the data is not gzip, is truncated or fails its CRC.
std::vector<uint8_t> gunzip(const uint8_t* data, size_t size, const std::string& what);

}  // namespace tformer
