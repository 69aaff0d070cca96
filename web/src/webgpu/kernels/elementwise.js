// Element-wise kernels over flat tensors, 256 elements per workgroup (2-D when large):
// activations in place, residual add in place, and the embedding of token ids.

export const ELEMENTWISE_THREADS = 256;

const header = (bindings) => /* wgsl */ `
${bindings}
fn flat_index(wg: vec3<u32>, nwg: vec3<u32>, li: u32) -> u32 {
  return (wg.y * nwg.x + wg.x) * ${ELEMENTWISE_THREADS}u + li;
}
`;
const entry = /* wgsl */ `@compute @workgroup_size(${ELEMENTWISE_THREADS})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
  let idx = flat_index(wg, nwg, li);`;

// x = relu(x) or x = x * sigmoid(x) (swish, also called SiLU).
export function activationKernel(kind) {
  const expr = { relu: 'max(v, 0.0)', swish: 'v / (1.0 + exp(-v))' }[kind];
  if (!expr) throw new Error(`unknown activation ${kind}`);
  const code = header(`
struct Params { n: u32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> x: array<f32>;`) + `
${entry}
  if (idx < p.n) {
    let v = x[idx];
    x[idx] = ${expr};
  }
}
`;
  return { key: `activation:${kind}`, code, params: 'u' };
}

// a += b (the residual connection).
export function addKernel() {
  const code = header(`
struct Params { n: u32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;`) + `
${entry}
  if (idx < p.n) { a[idx] += b[idx]; }
}
`;
  return { key: 'add', code, params: 'u' };
}

// x[b, t, :] = table[ids[b, t], :] * scale + pe[t, :] for t < length[b], zeros on padding.
// An id < 0 reads as a zero embedding (Marian's zero start vector); positions still add.
export function embedKernel() {
  const code = header(`
struct Params { rows: u32, S: u32, d: u32, scale: f32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> ids: array<i32>;
@group(0) @binding(2) var<storage, read> lengths: array<u32>;
@group(0) @binding(3) var<storage, read> table: array<f32>;
@group(0) @binding(4) var<storage, read> pe: array<f32>;
@group(0) @binding(5) var<storage, read_write> x: array<f32>;`) + `
${entry}
  if (idx >= p.rows * p.d) { return; }
  let r = idx / p.d;
  let c = idx % p.d;
  let t = r % p.S;
  var v = 0.0;
  if (t < lengths[r / p.S]) {
    let id = ids[r];
    if (id >= 0) { v = table[u32(id) * p.d + c] * p.scale; }
    v += pe[t * p.d + c];
  }
  x[idx] = v;
}
`;
  return { key: 'embed', code, params: 'uuuf' };
}
