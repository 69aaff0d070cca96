// The WebGPU backend of tformer-wasm: kernels, runtime, the encoder schedule, and the bridge to
// the wasm engine (WebGpuBackend answers a TranslationSession's requests; ../run-session.js
// drives a session, with or without it).
export { acquireGpu, GpuRuntime, GpuTensor, Recorder, GpuOutOfMemoryError, GpuDeviceLostError, GpuValidationError, Usage } from './runtime.js';
export {
  GpuLinear, linear, logSoftmaxTopK, attention, attentionScores, attentionValues, softmaxRows, layerNorm, activate, addInPlace, embed,
} from './ops.js';
export { GpuEncoder } from './encoder.js';
export { WebGpuBackend } from './backend.js';
export { f32ToF16Bits, f16BitsToF32, toF16Rows } from './half.js';
