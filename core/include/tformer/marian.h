// Marian models as downloaded (Firefox Translations, OPUS-MT) -> a .tfm image, in memory.
//
// The importer reads a model folder through a MarianFileSource: the names of its files, and the
// bytes of each file it needs, asked for by name and with a size limit for the kind of file (so a
// caller never reads a file the import does not use). The wasm build hands it the files it got
// from URLs, ArrayBuffers or Files; the CLI reads a directory. It returns the .tfm image that
// `tformer convert` writes: the rules of models/MARIAN-IMPORT.md decide what converts, what is
// refused (a tformer::Error naming the option, file or parameter) and what draws a warning.
//
//   std::vector<tformer::MarianFile> files = ...;          // the folder's files, by name
//   tformer::MarianImport m = tformer::import_marian(files);
//   tformer::Translator t(std::move(m.tfm));               // translate directly, or
//   write m.tfm to model.tfm                               // convert once
//
// Files read: the model (`*.npz`, or `*.bin`: float32, intgemm8 with `*_QuantMultA` alphas),
// `decoder.yml` / `config.yml` (which model and vocabularies), the vocabularies (`vocab.*.spm`,
// `srcvocab.*.spm` + `trgvocab.*.spm`, or `*.vocab.yml` tables with `source.spm` / `target.spm`)
// and the lexical shortlist `lex.*.s2t.bin` (checked and carried in the .tfm). A name ending in
// `.gz` is a gzip copy: it is decompressed and then known by its name without `.gz`. Other files
// (README, LICENSE, ...) are never read.
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

// Bytes that a MarianFileSource holds.
struct MarianBytes {
  const uint8_t* data = nullptr;
  size_t size = 0;
};

// Where an import reads a model folder from.
class MarianFileSource {
 public:
  virtual ~MarianFileSource() = default;
  // The names of the folder's files (last path components), in any order.
  virtual std::vector<std::string> names() const = 0;
  // The content of the file `name` (one of names()). Throws tformer::Error naming the file when it
  // cannot be read or holds more than `limit` bytes; a source must not read (or allocate) more
  // than `limit` bytes to find that out. The bytes stay valid as long as the source.
  virtual MarianBytes read(const std::string& name, size_t limit) = 0;
};

struct MarianImportOptions {
  // How matrices are stored in the .tfm: "keep" (float32 stays f32, intgemm8 becomes i8 with its
  // row scales), or "f32", "f16", "int8" for all of them (as `models/tfm import-marian --weights`).
  std::string weights = "keep";
  // The model file when the folder holds several (else found by the rules of MARIAN-IMPORT.md).
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
  std::vector<std::string> warnings;  // what the CLI prints as "warning: ..."
  bool has_shortlist = false;
  MarianShortlist shortlist;
};

// Converts; throws tformer::Error (phase kImport, code kInvalidModel; the detail names the file,
// the option or the parameter at fault) for a model the engine cannot run or a file that is not
// what its name says.
MarianImport import_marian(MarianFileSource& folder, const MarianImportOptions& options = {});
// The same for files in memory (the caller's bytes are read where they are).
MarianImport import_marian(const std::vector<MarianFile>& files, const MarianImportOptions& options = {});

}  // namespace tformer
