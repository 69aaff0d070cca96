// The validate step of an import: the options give an architecture the engine has, the
// vocabularies agree with each other and with the options, and the items are exactly the
// parameters of that architecture, each of a weight type and of the shape the options need.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "marian/architecture.h"
#include "marian/model.h"
#include "marian/parameters.h"

namespace tformer::marian {

struct Plan {
  Architecture arch;
  std::vector<Parameter> parameters;
  bool legacy_output = false;  // the output matrix is an old model's untransposed kLegacyOutput
  Json alphas = Json::object();  // *_QuantMultA: int8shiftAlphaAll's activation multipliers
  int64_t source_vocab = 0, target_vocab = 0;
  int64_t vocab = 0;                  // the engine's: the larger of the two
  std::set<std::string> item_types;   // of the items converted
};

Plan validate(const MarianModel& m, std::vector<std::string>& warnings);

// The item that holds a parameter (the legacy output matrix stands for kOutput).
const MarianItem& item_of(const MarianModel& m, const Plan& plan, const Parameter& p);

}  // namespace tformer::marian
