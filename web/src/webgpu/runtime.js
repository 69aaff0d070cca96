// The WebGPU runtime of the engine: one device, cached pipelines, tensors (plain storage buffers
// of f32), and a Recorder that puts many kernel dispatches into ONE command buffer and ONE
// submission with at most one readback at its end.
//
// What decides speed on a real GPU is rarely the kernels: it is the number of round trips
// between the CPU and the GPU. So the runtime counts them (`counters`) and the encoder records a
// whole stack of layers into one submission.
//
// Works unchanged in a page, a Worker (both `navigator.gpu`) and node with npm `webgpu` (pass its
// `create([])` as `gpu`). Nothing here imports a node module.

// Per-dispatch parameters live in 256-byte slots of shared uniform buffers:
// 256 is the largest `minUniformBufferOffsetAlignment` the spec allows, so it suits every adapter.
const PARAM_SLOT_BYTES = 256;
const PARAM_SLOTS_PER_CHUNK = 128;
const MAX_WORKGROUPS_PER_DIMENSION = 65535;

// Buffer usage flags, spelled out so the module does not depend on the GPUBufferUsage global
// (absent in node until the `webgpu` package's globals are installed).
export const Usage = Object.freeze({
  MAP_READ: 0x0001, MAP_WRITE: 0x0002, COPY_SRC: 0x0004, COPY_DST: 0x0008,
  INDEX: 0x0010, VERTEX: 0x0020, UNIFORM: 0x0040, STORAGE: 0x0080,
});
const MAP_MODE_READ = 0x0001;

export class GpuOutOfMemoryError extends Error {}
// The device is gone (driver reset, tab in background too long, destroy()): rebuild or use wasm.
export class GpuDeviceLostError extends Error {}
// A submission the GPU refused (a bug in the caller or here): never read back zeros silently.
export class GpuValidationError extends Error {}

// Resolves to { runtime } (a GpuRuntime), or { reason } when there is no WebGPU, no adapter or no
// device: the caller then keeps to wasm and can say why. Never throws for a missing GPU.
//   gpu:         a GPU object (default navigator.gpu)
//   f16Weights:  'auto' (f16 weights only where the adapter has `shader-f16`), true (f16 weights
//                everywhere, read through unpack2x16float where `shader-f16` is missing: tests),
//                false (always f32)
export async function acquireGpu({ gpu = globalThis.navigator?.gpu, powerPreference = 'high-performance',
  f16Weights = 'auto' } = {}) {
  if (!gpu) return { reason: 'no WebGPU (no GPU object such as navigator.gpu)' };
  let adapter;
  try {
    adapter = await gpu.requestAdapter({ powerPreference });
  } catch (e) {
    return { reason: `no WebGPU adapter: requestAdapter failed: ${messageOf(e)}` };
  }
  if (!adapter) return { reason: 'no WebGPU adapter' };
  const hasShaderF16 = adapter.features.has('shader-f16');
  // Model weights (an output projection of 32k x 512 floats is 64 MiB) can pass the default
  // 128 MiB binding limit with bigger models: ask for what the adapter can do.
  const requiredLimits = {};
  for (const name of ['maxStorageBufferBindingSize', 'maxBufferSize', 'maxComputeWorkgroupStorageSize'])
    if (adapter.limits[name] !== undefined) requiredLimits[name] = adapter.limits[name];
  let device;
  try {
    device = await adapter.requestDevice({
      label: 'tformer',
      requiredFeatures: hasShaderF16 ? ['shader-f16'] : [],
      requiredLimits,
    });
  } catch (e) {
    return { reason: `no WebGPU device: requestDevice failed: ${messageOf(e)}` };
  }
  if (!device) return { reason: 'no WebGPU device' };
  return { runtime: new GpuRuntime(adapter, device, { hasShaderF16, f16Weights, gpu }) };
}

function messageOf(e) {
  return e instanceof Error ? e.message : String(e);
}

// A flat f32 (or u32/i32) array in a storage buffer.
export class GpuTensor {
  constructor(runtime, buffer, length, label) {
    this.runtime = runtime;
    this.buffer = buffer;
    this.length = length; // elements of 4 bytes
    this.label = label;
  }
  get bytes() { return this.length * 4; }
  destroy() {
    this.buffer.destroy();
    this.buffer = null;
  }
}

export class GpuRuntime {
  constructor(adapter, device, { hasShaderF16 = false, f16Weights = 'auto', gpu = null } = {}) {
    // Holding the GPU object matters in node: Dawn's instance is freed with it when collected,
    // and a device outliving its instance crashes the process (seen with npm webgpu 0.6.2).
    this.gpu = gpu;
    this.adapter = adapter;
    this.device = device;
    this.hasShaderF16 = hasShaderF16;
    this.useF16Weights = f16Weights === 'auto' ? hasShaderF16 : Boolean(f16Weights);
    // submissions: queue.submit calls; readbacks: buffers mapped for reading (each one a full
    // CPU<->GPU round trip); dispatches: compute dispatches recorded; bytes moved each way.
    this.counters = { submissions: 0, readbacks: 0, dispatches: 0, uploadedBytes: 0, readBytes: 0 };
    this.errors = []; // uncaptured validation/OOM errors: a test asserts there are none
    this.isLost = false;
    this.lostInfo = null;
    this.onLost = null; // set by the owner to fall back to wasm
    // Lowered by tests to exercise 2-D folding of large dispatches cheaply.
    this.maxWorkgroupsPerDimension = device.limits?.maxComputeWorkgroupsPerDimension ?? MAX_WORKGROUPS_PER_DIMENSION;
    this.pipelines = new Map();
    this.freeParamChunks = [];
    this.freeStaging = [];
    // Staging buffers whose mapAsync has not settled. A mapAsync left pending when its thread
    // ends aborts node's whole process (npm webgpu: "GPUBuffer.cpp:74: Promise not resolved or
    // rejected: mapAsync()"), so each is cancelled (its buffer destroyed, which rejects the
    // mapping) at destroy() and at the device's loss, and a thread that runs GPU work is only
    // ended once its readbacks have settled (engine-host.js keeps it alive until then: an exit
    // hook cannot help, a terminating thread runs no more promise callbacks).
    this.mapping = new Set();
    // Settles once Dawn has delivered the device's loss, whatever caused it (destroy() returns it).
    this.lost = device.lost.then((info) => {
      this.isLost = true;
      this.lostInfo = info;
      this.cancelReadbacks();
      if (this.onLost) this.onLost(info);
    });
    if (typeof device.addEventListener === 'function')
      device.addEventListener('uncapturederror', (event) => this.errors.push(event.error));
  }

  resetCounters() {
    for (const key of Object.keys(this.counters)) this.counters[key] = 0;
  }

  // kernel: { key, code } as built by kernels/*.js; one pipeline per distinct key.
  pipeline(kernel) {
    let pipeline = this.pipelines.get(kernel.key);
    if (!pipeline) {
      const module = this.device.createShaderModule({ label: kernel.key, code: kernel.code });
      pipeline = this.device.createComputePipeline({
        label: kernel.key,
        layout: 'auto',
        compute: { module, entryPoint: 'main' },
      });
      this.pipelines.set(kernel.key, pipeline);
    }
    return pipeline;
  }

  // An uninitialised (zeroed, per WebGPU) storage tensor of `length` 4-byte elements.
  tensor(length, label = 'tensor') {
    const buffer = this.device.createBuffer({
      label,
      size: Math.max(4, length * 4),
      usage: Usage.STORAGE | Usage.COPY_SRC | Usage.COPY_DST,
    });
    return new GpuTensor(this, buffer, length, label);
  }

  // A storage tensor holding `data` (Float32Array, Int32Array or Uint32Array; or any typed array
  // whose byte length is a multiple of 4), written once through a mapped-at-creation buffer.
  upload(data, label = 'upload') {
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    if (bytes.length % 4 !== 0) throw new Error(`upload ${label}: ${bytes.length} bytes is not a multiple of 4`);
    const buffer = this.device.createBuffer({
      label,
      size: Math.max(4, bytes.length),
      usage: Usage.STORAGE | Usage.COPY_SRC | Usage.COPY_DST,
      mappedAtCreation: true,
    });
    new Uint8Array(buffer.getMappedRange()).set(bytes);
    buffer.unmap();
    this.counters.uploadedBytes += bytes.length;
    return new GpuTensor(this, buffer, bytes.length / 4, label);
  }

  // Overwrites the start of a tensor with `data` (per-batch inputs: activations, lengths). Queue
  // ordered: visible to every submission made after this call.
  write(tensor, data) {
    if (data.byteLength > tensor.bytes)
      throw new Error(`write ${tensor.label}: ${data.byteLength} bytes into a ${tensor.bytes}-byte tensor`);
    this.device.queue.writeBuffer(tensor.buffer, 0, data.buffer, data.byteOffset, data.byteLength);
    this.counters.uploadedBytes += data.byteLength;
  }

  // Runs fn (which allocates) inside an out-of-memory error scope and throws GpuOutOfMemoryError
  // if the GPU could not hold it, so that loading can fall back to wasm instead of failing later.
  async guardMemory(what, fn) {
    this.device.pushErrorScope('out-of-memory');
    let result;
    try {
      result = fn();
    } finally {
      const error = await this.device.popErrorScope();
      if (error) throw new GpuOutOfMemoryError(`GPU out of memory while allocating ${what}: ${error.message}`);
    }
    return result;
  }

  recorder(label = 'tformer') {
    if (this.isLost) throw new GpuDeviceLostError(`WebGPU device lost: ${this.lostInfo?.message ?? 'destroyed'}`);
    return new Recorder(this, label);
  }

  // Work-group counts for n work items of `perGroup` each, folded into 2-D when n exceeds the
  // per-dimension limit (kernels recover the flat index from num_workgroups and skip the excess).
  grid(n, perGroup = 1) {
    const groups = Math.max(1, Math.ceil(n / perGroup));
    const limit = this.maxWorkgroupsPerDimension;
    if (groups <= limit) return [groups, 1, 1];
    return [limit, Math.ceil(groups / limit), 1];
  }

  acquireParamChunk() {
    return this.freeParamChunks.pop() ?? {
      buffer: this.device.createBuffer({
        label: 'params',
        size: PARAM_SLOT_BYTES * PARAM_SLOTS_PER_CHUNK,
        usage: Usage.UNIFORM | Usage.COPY_DST,
      }),
      data: new ArrayBuffer(PARAM_SLOT_BYTES * PARAM_SLOTS_PER_CHUNK),
      used: 0,
    };
  }

  acquireStaging(bytes) {
    const index = this.freeStaging.findIndex((b) => b.size >= bytes);
    if (index >= 0) return this.freeStaging.splice(index, 1)[0];
    return this.device.createBuffer({ label: 'readback', size: bytes, usage: Usage.MAP_READ | Usage.COPY_DST });
  }

  // Frees the device. The loss this causes is no failure, so onLost is not told; the returned
  // promise settles when Dawn has delivered it. In node a Worker must not be terminated before
  // then: the callback would run on a terminating thread and abort the process (napi_throw,
  // npm webgpu 0.6.2).
  destroy() {
    this.onLost = null;
    this.cancelReadbacks();
    for (const chunk of this.freeParamChunks) chunk.buffer.destroy();
    for (const buffer of this.freeStaging) buffer.destroy();
    this.freeParamChunks = [];
    this.freeStaging = [];
    this.pipelines.clear();
    this.device.destroy();
    return this.lost;
  }

  // Rejects every pending readback (its submit() throws) by destroying its staging buffer.
  cancelReadbacks() {
    for (const staging of this.mapping) {
      staging.cancelled = true;
      staging.destroy();
    }
    this.mapping.clear();
  }
}

// Records dispatches into one compute pass of one command encoder; `submit` sends them with one
// queue.submit and, if asked, copies one tensor out and maps it: one readback.
//
// Dispatches in one compute pass see each other's storage writes in order (each dispatch is its
// own usage scope), so a whole encoder can be one pass.
export class Recorder {
  constructor(runtime, label) {
    this.runtime = runtime;
    this.encoder = runtime.device.createCommandEncoder({ label });
    this.pass = this.encoder.beginComputePass({ label });
    this.chunks = [];
    this.submitted = false;
  }

  // kernel: { key, code, params: 'u'/'f'/'i' per 4-byte field }; values: numbers in that order;
  // tensors: GpuTensors bound at bindings 1, 2, ... (binding 0 holds the parameters).
  dispatch(kernel, values, tensors, workgroups) {
    if (this.submitted) throw new Error('recorder already submitted');
    const runtime = this.runtime;
    let chunk = this.chunks[this.chunks.length - 1];
    if (!chunk || chunk.used === PARAM_SLOTS_PER_CHUNK) {
      chunk = runtime.acquireParamChunk();
      chunk.used = 0;
      this.chunks.push(chunk);
    }
    const offset = chunk.used * PARAM_SLOT_BYTES;
    chunk.used += 1;
    if (values.length !== kernel.params.length)
      throw new Error(`${kernel.key}: ${values.length} parameters given, ${kernel.params.length} expected`);
    const view = new DataView(chunk.data, offset, PARAM_SLOT_BYTES);
    for (let i = 0; i < values.length; ++i) {
      const kind = kernel.params[i];
      if (kind === 'f') view.setFloat32(4 * i, values[i], true);
      else if (kind === 'i') view.setInt32(4 * i, values[i], true);
      else view.setUint32(4 * i, values[i], true);
    }
    const pipeline = runtime.pipeline(kernel);
    const entries = [{ binding: 0, resource: { buffer: chunk.buffer, offset, size: PARAM_SLOT_BYTES } }];
    tensors.forEach((t, i) => {
      if (!t || !t.buffer) throw new Error(`${kernel.key}: binding ${i + 1} is not a live tensor`);
      entries.push({ binding: i + 1, resource: { buffer: t.buffer } });
    });
    const bindGroup = runtime.device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries });
    this.pass.setPipeline(pipeline);
    this.pass.setBindGroup(0, bindGroup);
    this.pass.dispatchWorkgroups(workgroups[0], workgroups[1] ?? 1, workgroups[2] ?? 1);
    runtime.counters.dispatches += 1;
  }

  // Submits everything recorded. With `readback` (a tensor; `length` elements from its start,
  // default all) resolves to a Float32Array of them; otherwise resolves when the GPU is done if
  // `wait`, else at once.
  async submit({ readback = null, length = readback ? readback.length : 0, wait = false } = {}) {
    if (this.submitted) throw new Error('recorder already submitted');
    this.submitted = true;
    const runtime = this.runtime;
    const device = runtime.device;
    this.pass.end();
    let staging = null;
    const bytes = length * 4;
    if (readback) {
      staging = runtime.acquireStaging(bytes);
      this.encoder.copyBufferToBuffer(readback.buffer, 0, staging, 0, bytes);
    }
    // Errors of recording surface at finish/submit; a scope turns them into an exception here.
    device.pushErrorScope('validation');
    const commands = this.encoder.finish();
    // The parameters go up right before the submission that reads them: queue order makes a
    // chunk reused by a later recorder safe.
    for (const chunk of this.chunks)
      device.queue.writeBuffer(chunk.buffer, 0, chunk.data, 0, chunk.used * PARAM_SLOT_BYTES);
    device.queue.submit([commands]);
    const validation = device.popErrorScope();
    runtime.counters.submissions += 1;
    runtime.freeParamChunks.push(...this.chunks);
    this.chunks = [];
    const check = async () => {
      const error = await validation;
      if (error) throw new GpuValidationError(`WebGPU rejected the submission: ${error.message}`);
      if (runtime.isLost) throw new GpuDeviceLostError(`WebGPU device lost: ${runtime.lostInfo?.message ?? ''}`);
    };
    if (!readback) {
      if (!wait) {
        validation.then((error) => error && runtime.errors.push(error));
        return undefined;
      }
      await device.queue.onSubmittedWorkDone();
      await check();
      return undefined;
    }
    runtime.mapping.add(staging);
    try {
      await staging.mapAsync(MAP_MODE_READ, 0, bytes);
    } catch (error) {
      // Cancelled (cancelReadbacks destroyed the buffer) or the device is gone: not reusable.
      runtime.mapping.delete(staging);
      await check();
      if (staging.cancelled) throw new GpuDeviceLostError(`WebGPU readback cancelled (device destroyed or lost): ${error?.message ?? error}`);
      throw error;
    }
    runtime.mapping.delete(staging);
    let out;
    try {
      await check();
      out = new Float32Array(staging.getMappedRange(0, bytes).slice(0));
    } finally {
      staging.unmap();
      runtime.freeStaging.push(staging);
    }
    runtime.counters.readbacks += 1;
    runtime.counters.readBytes += bytes;
    return out;
  }
}
