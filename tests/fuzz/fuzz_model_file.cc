// libFuzzer harness: the .tfm reader on arbitrary bytes. Loads from memory, reads every tensor the
// way the engine does and prints what `tformer info` prints (into a string); any input must end in
// a tformer::Error or a model, never a crash, a sanitizer report, a hang or a huge allocation.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "model/config.h"
#include "model/model_file.h"
#include "tformer/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const tformer::ModelFile file = tformer::ModelFile::from_bytes(std::vector<uint8_t>(data, data + size));
    file.check_memory();
    std::string info = file.config().to_json().dump();
    info += file.header().contains("metadata") ? file.header()["metadata"].dump() : "{}";
    // The decoder reads the alignment head from the metadata when the model is built.
    const auto meta = file.header().find("metadata");
    const tformer::AlignmentHead head = tformer::alignment_head_from_metadata(
        meta == file.header().end() ? nlohmann::json() : *meta, file.config());
    info += std::to_string(head.layer) + std::to_string(head.head);
    info += std::to_string(file.memory_estimate());
    for (const tformer::TensorEntry& t : file.tensors()) {
      info += t.name + tformer::dtype_name(t.dtype) + t.shape_string() + std::to_string(t.nbytes);
      if (t.dtype == tformer::DType::kU8) {
        info += std::to_string(file.bytes_of(t.name).size());
      } else if (t.elements() <= (1 << 20)) {  // the engine widens these; bounded to keep runs fast
        const std::vector<float> values = file.floats(t.name, t.shape);
        if (!values.empty()) info += std::to_string(values[0]);
        if (t.dtype == tformer::DType::kI8) info += std::to_string(file.int8_rows(t.name, t.shape).scales.size());
      }
    }
    if (info.empty()) __builtin_trap();
  } catch (const tformer::Error&) {
    // A clear refusal is the expected outcome for most inputs.
  }
  return 0;
}
