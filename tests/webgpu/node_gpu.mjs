// A WebGPU runtime for node tests: npm `webgpu` (Dawn) on whatever Vulkan adapter there is.
// Without a GPU, Chromium's SwiftShader (Debian `chromium`, plus `libvulkan1`) serves as one: its
// ICD is selected here unless VK_ICD_FILENAMES is already set, before Dawn loads Vulkan.
// Resolves to { runtime } or { reason } (why there is none, for a skip message).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { acquireGpu } from '../../web/src/webgpu/runtime.js';

export const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

export async function nodeRuntime(options = {}) {
  if (!process.env.VK_ICD_FILENAMES && existsSync(SWIFTSHADER_ICD)) process.env.VK_ICD_FILENAMES = SWIFTSHADER_ICD;
  let webgpu;
  try {
    const require = createRequire(new URL('../../web/package.json', import.meta.url));
    webgpu = await import(pathToFileURL(require.resolve('webgpu')).href);
  } catch (error) {
    return { reason: `npm package 'webgpu' not found under web/node_modules (cd web && npm ci): ${error.message}` };
  }
  const { create, globals } = webgpu;
  Object.assign(globalThis, globals);
  const { runtime, reason } = await acquireGpu({ gpu: create([]), ...options });
  if (!runtime) {
    return {
      reason: `${reason}: install Debian packages chromium and libvulkan1 (SwiftShader), ` +
        `or set VK_ICD_FILENAMES (now ${process.env.VK_ICD_FILENAMES ?? 'unset'})`,
    };
  }
  return { runtime };
}

// Dawn's null backend: executes nothing, but validates WGSL and pipelines and offers every
// feature, `shader-f16` included. Used to compile the f16 kernels that SwiftShader cannot run.
export async function nullDevice() {
  const { create, globals } = await import(pathToFileURL(
    createRequire(new URL('../../web/package.json', import.meta.url)).resolve('webgpu')).href);
  Object.assign(globalThis, globals);
  const gpu = create(['backend=null']);
  const adapter = await gpu.requestAdapter();
  if (!adapter) return null;
  const features = adapter.features.has('shader-f16') ? ['shader-f16'] : [];
  const device = await adapter.requestDevice({ requiredFeatures: features });
  return { gpu, adapter, device, hasShaderF16: features.length > 0 };
}
