// import_marian: find the folder's files, read them, validate them against each other, convert
// the parameters to the engine's tensors, cast them to the requested precision, and write the
// .tfm with its config, tokenizer section and metadata.
#include <algorithm>
#include <new>
#include <stdexcept>

#include "marian/cast.h"
#include "marian/convert.h"
#include "marian/discover.h"
#include "marian/folder.h"
#include "marian/metadata.h"
#include "marian/model.h"
#include "marian/tfm_writer.h"
#include "marian/validate.h"
#include "tformer/marian.h"
#include "util/printable.h"

namespace tformer {
namespace {

using namespace marian;

// Files in memory: read where they are.
class MemoryFiles : public MarianFileSource {
 public:
  explicit MemoryFiles(const std::vector<MarianFile>& files) : files_(files) {}
  std::vector<std::string> names() const override {
    std::vector<std::string> n;
    for (const MarianFile& f : files_) n.push_back(f.name);
    return n;
  }
  MarianBytes read(const std::string& name, size_t limit) override {
    for (const MarianFile& f : files_) {
      if (f.name != name) continue;
      if (f.bytes.size() > limit) {
        throw Error(printable(name) + ": " + std::to_string(f.bytes.size()) + " bytes, more than " + size_text(limit) +
                    ", the most this kind of file may hold");
      }
      return {f.bytes.data(), f.bytes.size()};
    }
    throw Error(printable(name) + " is missing");
  }

 private:
  const std::vector<MarianFile>& files_;
};

std::string stem(const std::string& name) {
  const size_t dot = name.find_last_of('.');
  return dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
}

void check_options(const MarianImportOptions& opt) {
  const std::string& w = opt.weights;
  if (w != "keep" && w != "f32" && w != "f16" && w != "int8") {
    throw Error("--weights must be keep, f32, f16 or int8, not '" + printable(w) + "'");
  }
  if (opt.max_positions < 1 || opt.max_positions > (1 << 20)) {
    throw Error("--max-positions must be between 1 and 1048576, got " + std::to_string(opt.max_positions));
  }
}

MarianImport import(MarianFileSource& source, const MarianImportOptions& opt) {
  check_options(opt);
  MarianImport result;
  Folder folder(source);

  // Read.
  MarianModel model = read_model(folder, discover(folder, opt));
  // Validate.
  const Plan plan = validate(model, result.warnings);
  // Convert, then free the model's bytes.
  Converted converted = convert(model, plan, opt.weights == "keep" || opt.weights == "int8");
  model.items.clear();
  model.items.shrink_to_fit();
  folder.release(model.files.model);
  // Cast.
  cast(converted.tensors, opt.weights);
  // Metadata.
  result.name = opt.name.empty() ? stem(model.files.model) : opt.name;
  result.model_file = model.files.model;
  const Json config = engine_config(model, plan, converted, opt.max_positions);
  const Json tokenizer = tokenizer_section(model, converted.tensors);
  const Json meta = metadata(model, plan, converted, result.name, opt.weights);
  attach_shortlist(folder, model, converted.tensors, result);
  Json s = summary(model, plan, converted, config, tokenizer, meta, result);

  result.tfm = write_tfm(config, tokenizer, converted.tensors, meta);
  s["bytes"] = result.tfm.size();
  result.summary_json = s.dump(-1, ' ', true);
  return result;
}

}  // namespace

MarianImport import_marian(MarianFileSource& folder, const MarianImportOptions& options) {
  // What gets past the readers' own checks still reaches the caller as a tformer::Error.
  try {
    return import(folder, options);
  } catch (Error& e) {
    throw e.in(Phase::kImport, ErrorCode::kInvalidModel);
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorCode::kInvalidModel, Phase::kImport,
                std::string("the Marian model's text is not valid (") + printable(e.what()) + ")");
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::kResources, Phase::kImport, "out of memory while importing the Marian model");
  } catch (const std::length_error&) {
    throw Error(ErrorCode::kResources, Phase::kImport,
                "out of memory while importing the Marian model (a size beyond what this build can allocate)");
  }
}

MarianImport import_marian(const std::vector<MarianFile>& files, const MarianImportOptions& options) {
  MemoryFiles source(files);
  return import_marian(source, options);
}

}  // namespace tformer
