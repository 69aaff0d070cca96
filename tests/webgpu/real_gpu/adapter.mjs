// Prints, as JSON, the WebGPU adapter that npm `webgpu` (Dawn) offers in this process: its info,
// features and the limits the kernels depend on; { "adapter": null } where there is none.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const require = createRequire(new URL('../../../web/package.json', import.meta.url));
const { create, globals } = await import(pathToFileURL(require.resolve('webgpu')).href);
Object.assign(globalThis, globals);
const adapter = await create([]).requestAdapter({ powerPreference: 'high-performance' });
if (!adapter) {
  console.log(JSON.stringify({ adapter: null }));
} else {
  const info = adapter.info ?? {};
  const limits = ['maxBufferSize', 'maxStorageBufferBindingSize', 'maxComputeWorkgroupSizeX',
    'maxComputeInvocationsPerWorkgroup', 'maxComputeWorkgroupStorageSize'];
  console.log(JSON.stringify({
    adapter: { vendor: info.vendor, architecture: info.architecture, device: info.device, description: info.description,
      isFallbackAdapter: info.isFallbackAdapter ?? adapter.isFallbackAdapter ?? null },
    features: [...adapter.features].sort(),
    limits: Object.fromEntries(limits.map((k) => [k, adapter.limits[k]])),
  }, null, 2));
}
process.exit(0);
