// Test code, loaded with `node --import` into every thread of a test process, the package's engine
// Worker included (a worker_threads Worker inherits the process's --import): it wraps the WebGPU
// backend's projections so that a test can lose the GPU device where it wants, as a real loss
// would happen, while the shipped engine keeps no test hooks.
//   TFORMER_WEBGPU_FAULT=lose-device:N   destroys the GPU device during the N-th projection of the
//                                        thread's life (the pending readback then fails)
// A Worker reads the environment as it was when the Worker started.
import { WebGpuBackend } from '../../web/src/webgpu/backend.js';

const spec = process.env.TFORMER_WEBGPU_FAULT;
const lose = /^lose-device:(\d+)$/.exec(spec ?? '');
if (spec && !lose) throw new Error(`tests/webgpu/faults.mjs: unknown TFORMER_WEBGPU_FAULT '${spec}' (known: lose-device:N)`);
if (lose) {
  let calls = 0;
  for (const name of ['project', 'projectCandidates']) {
    const method = WebGpuBackend.prototype[name];
    WebGpuBackend.prototype[name] = function projectThenLose(...args) {
      const answer = method.apply(this, args);
      if (++calls === Number(lose[1])) this.runtime.device.destroy();
      return answer;
    };
  }
}
