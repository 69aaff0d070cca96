// Writes a .tfm image (docs/FORMAT.md): the JSON header, then each tensor at a 64-byte aligned
// offset, little-endian.
#pragma once

#include <cstdint>
#include <vector>

#include "marian/tensors.h"
#include "marian/yaml.h"

namespace tformer::marian {

// The tensors are written in their order and freed one by one as they are copied out.
std::vector<uint8_t> write_tfm(const Json& config, const Json& tokenizer, Tensors& tensors, const Json& metadata);

}  // namespace tformer::marian
