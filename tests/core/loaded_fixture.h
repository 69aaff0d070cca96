// A golden fixture's model as a Translator loads it (translation/loaded_model.h), with its PyTorch
// golden values: what the tests of the single translation steps start from.
#pragma once

#include <string>

#include "fixtures.h"
#include "model/model_file.h"
#include "tformer/options.h"
#include "translation/loaded_model.h"

namespace tformer::testing {

struct LoadedFixture {
  LoadedModel model;
  Golden golden;
  explicit LoadedFixture(const std::string& variant)
      : model(ModelFile::from_path(fixture_path(variant, "model.tfm")), TranslatorConfig{}), golden(variant) {}
};

}  // namespace tformer::testing
