// The Translator facade. A translation is its parts in order (core/src/translation/): the
// segmenter (text -> sentences -> token ids, cut to the model's positions), the batcher
// (length-sorted batches), the session's state machine (encoder, then search step by step, with
// requests another backend may answer) and the response builder (detokenized text, passthrough
// restored, sentences joined). Loading and what info() reports: loaded_model.*, model_info.*.
// translate() is a session whose requests are all answered here.
#include "tformer/translator.h"

#include <mutex>

#include "model/model_file.h"
#include "translation/loaded_model.h"
#include "translation/session.h"

namespace tformer {

// What a Translator holds: the loaded model, shared with the sessions it begins.
class Translator::Impl : public LoadedModel {
 public:
  using LoadedModel::LoadedModel;
};

namespace {

// Loading, with its errors in phase kLoad: what the readers refuse is an invalid model.
template <typename F>
auto loading(F&& load) -> decltype(load()) {
  try {
    return load();
  } catch (Error& e) {
    throw e.in(Phase::kLoad, ErrorCode::kInvalidModel);
  }
}

}  // namespace

Translator::Translator(const std::string& model_path, const TranslatorConfig& config)
    : impl_(loading([&] { return std::make_shared<Impl>(ModelFile::from_path(model_path), config); })) {}

Translator::Translator(const uint8_t* data, size_t size, const TranslatorConfig& config)
    : Translator(std::vector<uint8_t>(data, data + size), config) {}

Translator::Translator(std::vector<uint8_t> bytes, const TranslatorConfig& config)
    : impl_(loading([&] { return std::make_shared<Impl>(ModelFile::from_bytes(std::move(bytes)), config); })) {}

Translator::~Translator() = default;

std::vector<Translation> Translator::translate(const std::vector<std::string>& texts, const TranslateOptions& options) {
  const std::unique_ptr<TranslationSession> session = begin(texts, options);
  while (session->next() != TranslationSession::Need::kDone) session->compute_on_cpu();
  return session->results();
}

std::unique_ptr<TranslationSession> Translator::begin(const std::vector<std::string>& texts,
                                                      const TranslateOptions& options) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  try {
    return std::unique_ptr<TranslationSession>(
        new TranslationSession(std::make_unique<TranslationSession::Impl>(impl_, texts, options)));
  } catch (Error& e) {
    throw e.in(Phase::kRequest, ErrorCode::kInternal);
  }
}

void Translator::use_memory(std::shared_ptr<TranslationMemory> memory) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  if (memory) impl_->identity();
  impl_->memory = std::move(memory);
}

std::string Translator::model_identity() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->identity();
}

TensorFloats Translator::tensor_floats(const std::string& name) const { return impl_->tensor_floats(name); }
const std::vector<float>& Translator::positions() const { return impl_->model->positions().table(); }
ModelPlan Translator::plan() const { return impl_->model->plan(); }
const ModelInfo& Translator::info() const { return impl_->info; }
std::string Translator::kernels_name() const { return impl_->kernels->name(); }
int Translator::threads() const { return impl_->kernels->threads(); }

}  // namespace tformer
