// A Marian model's options (its special:model.yml item, or the training config.yml given with
// --config), read as Marian reads them: each option has a type, and its YAML text is converted
// when it is read, with yaml-cpp's conversions (what Marian's Options::get<T> uses), so that `true`
// or `on` is a boolean and `512` an integer. An option that is absent or null has Marian's default
// (marian-dev src/common/config_parser.cpp) for the options that shape a transformer.
#pragma once

#include <string>
#include <vector>

#include "marian/yaml.h"

namespace tformer::marian {

class MarianOptions {
 public:
  // `options`: parse_options' mapping; `what` names the file in messages.
  MarianOptions(Json options, std::string what);

  // Typed values; tformer::Error naming the option when its text is not of its type.
  bool flag(const std::string& key) const;
  long long integer(const std::string& key) const;
  std::string text(const std::string& key) const;
  std::vector<std::string> list(const std::string& key) const;  // a sequence's items (a scalar: itself)
  bool given(const std::string& key) const;                     // present and not null

  // The option names the file gives, sorted.
  std::vector<std::string> keys() const;
  // An option's value with its type (JSON true, 512, "relu", [..]) for the .tfm metadata; as
  // written where it does not convert.
  Json typed(const std::string& key) const;

  const std::string& what() const { return what_; }

  // Options that shape a transformer (those with a default here) and options read and ignored
  // (training, RNN-only, decoding settings): neither draws a warning.
  static bool is_architecture_option(const std::string& key);
  static bool is_ignored_option(const std::string& key);

 private:
  const Json* value(const std::string& key) const;  // the given value or the default; null if none

  Json options_;
  std::string what_;
};

}  // namespace tformer::marian
