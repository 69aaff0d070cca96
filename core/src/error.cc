// tformer::Error (tformer/error.h): its fields, the stable names of codes and phases, and the
// wording for C++ callers.
#include "tformer/error.h"

#include <utility>

namespace tformer {

Error::Error(std::string detail) : detail_(std::move(detail)) { word(); }

Error::Error(ErrorCode code, Phase phase, std::string detail) : code_(code), phase_(phase), detail_(std::move(detail)) {
  word();
}

Error Error::about_input(ErrorCode code, size_t input, std::string detail) {
  Error e(code, Phase::kRequest, std::move(detail));
  e.input_ = input;
  e.word();
  return e;
}

Error Error::wrong_state(Phase call, std::string detail, std::vector<Phase> fit) {
  Error e(ErrorCode::kWrongState, call, std::move(detail));
  e.fit_ = std::move(fit);
  e.word();
  return e;
}

Error& Error::in(Phase phase, ErrorCode code) {
  if (!phase_) phase_ = phase;
  if (!code_) code_ = code;
  word();
  return *this;
}

// An input's error names the text; a session call's names the call and what would fit instead;
// any other is its detail.
void Error::word() {
  if (input_) {
    message_ = "input text " + std::to_string(*input_ + 1) + " " + detail_;
  } else if (phase_ && is_session_call(*phase_)) {
    message_ = std::string(phase_name(*phase_)) + "() " + detail_;
    if (!fit_.empty()) {
      std::vector<std::string> calls;
      for (Phase p : fit_) calls.push_back(std::string(phase_name(p)) + "()");
      message_ += " (call " + join_alternatives(calls) + ")";
    }
  } else {
    message_ = detail_;
  }
}

const char* code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidModel: return "invalid_model";
    case ErrorCode::kInvalidOptions: return "invalid_options";
    case ErrorCode::kInvalidArgument: return "invalid_argument";
    case ErrorCode::kInvalidText: return "invalid_text";
    case ErrorCode::kTextTooLong: return "text_too_long";
    case ErrorCode::kWrongState: return "wrong_state";
    case ErrorCode::kInvalidValues: return "invalid_values";
    case ErrorCode::kResources: return "resources";
    case ErrorCode::kInvalidCatalog: return "invalid_catalog";
    case ErrorCode::kDownload: return "download";
    case ErrorCode::kInternal: return "internal";
  }
  return "internal";
}

const char* phase_name(Phase phase) {
  switch (phase) {
    case Phase::kLoad: return "load";
    case Phase::kImport: return "import";
    case Phase::kCatalog: return "catalog";
    case Phase::kDownload: return "download";
    case Phase::kRequest: return "request";
    case Phase::kTranslate: return "translate";
    case Phase::kDetect: return "detect";
    case Phase::kNext: return "next";
    case Phase::kEncodeRequest: return "encode_request";
    case Phase::kProvideEncoderOutput: return "provide_encoder_output";
    case Phase::kHidden: return "hidden";
    case Phase::kProvideLogits: return "provide_logits";
    case Phase::kProvideCandidates: return "provide_candidates";
    case Phase::kCandidatesPerRow: return "candidates_per_row";
    case Phase::kProjectsOnCpuOnly: return "projects_on_cpu_only";
    case Phase::kComputeOnCpu: return "compute_on_cpu";
    case Phase::kResults: return "results";
  }
  return "translate";
}

bool is_session_call(Phase phase) {
  return phase != Phase::kLoad && phase != Phase::kImport && phase != Phase::kCatalog && phase != Phase::kDownload &&
         phase != Phase::kRequest && phase != Phase::kTranslate && phase != Phase::kDetect;
}

std::string join_alternatives(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) out += i + 1 == names.size() ? " or " : ", ";
    out += names[i];
  }
  return out;
}

}  // namespace tformer
