// The metadata step of an import: the .tfm's config (Marian's conventions: sinusoidal positions,
// zero start vector, EOS-only source, layer norm epsilon 1e-6), its tokenizer section (each side's
// SentencePiece model and id table, stored once when both sides share it), its metadata (where
// the model came from, its Marian options, its storage precision, the alignment head of a model
// trained with guided alignment), and the lexical shortlist it carries.
#pragma once

#include <string>
#include <vector>

#include "marian/convert.h"
#include "marian/folder.h"
#include "marian/model.h"
#include "marian/validate.h"
#include "tformer/marian.h"

namespace tformer::marian {

Json engine_config(const MarianModel& m, const Plan& plan, const Converted& c, int max_positions);

// Adds the tokenizer tensors; returns the section.
Json tokenizer_section(const MarianModel& m, Tensors& tensors);

Json metadata(const MarianModel& m, const Plan& plan, const Converted& c, const std::string& name,
              const std::string& weights);

// The first binary lexical shortlist of the folder (lex.*.s2t.bin), checked as the engine checks
// it at load and added as the u8 tensor "shortlist" (docs/FORMAT.md), the file unchanged; a text
// shortlist draws a warning. Fills `result.shortlist`.
void attach_shortlist(Folder& folder, const MarianModel& m, Tensors& tensors, MarianImport& result);

// What MarianImport::summary_json describes.
Json summary(const MarianModel& m, const Plan& plan, const Converted& c, const Json& config, const Json& tokenizer,
             const Json& metadata, const MarianImport& result);

}  // namespace tformer::marian
