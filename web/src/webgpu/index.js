// The WebGPU backend of tformer-wasm: kernels, runtime and the encoder schedule.
export { acquireGpu, GpuRuntime, GpuTensor, Recorder, GpuOutOfMemoryError, GpuDeviceLostError, GpuValidationError, Usage } from './runtime.js';
export {
  GpuLinear, linear, attention, attentionScores, attentionValues, softmaxRows, layerNorm, activate, addInPlace, embed,
} from './ops.js';
export { GpuEncoder } from './encoder.js';
export { f32ToF16Bits, f16BitsToF32, toF16Rows } from './half.js';
