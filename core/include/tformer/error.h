// Errors of the engine: one exception type whose message says what is wrong and where, so that a
// person can act on it (the CLI prints it, the wasm bindings rethrow it as a JS Error).
#pragma once

#include <stdexcept>
#include <string>

namespace tformer {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace tformer
