// Layer normalisation y = (x - mean) / sqrt(var + eps) * gamma + beta over rows of d, one
// workgroup of 64 threads per row. Two passes over the row (mean, then the mean of squared
// deviations), each reduced as a tree of partial sums: f32 only, yet without the cancellation of
// the one-pass E[x^2] - E[x]^2 (there is no f64 in WGSL). x and y must be different tensors.

export const LAYER_NORM_THREADS = 64;

export function layerNormKernel() {
  const code = /* wgsl */ `
struct Params { rows: u32, d: u32, eps: f32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> gamma: array<f32>;
@group(0) @binding(3) var<storage, read> beta: array<f32>;
@group(0) @binding(4) var<storage, read_write> y: array<f32>;

const T = ${LAYER_NORM_THREADS}u;
var<workgroup> red: array<f32, T>;

fn reduce_sum(li: u32, v: f32) -> f32 {
  red[li] = v;
  workgroupBarrier();
  for (var half = T / 2u; half > 0u; half /= 2u) {
    if (li < half) { red[li] += red[li + half]; }
    workgroupBarrier();
  }
  let total = red[0];
  workgroupBarrier();
  return total;
}

@compute @workgroup_size(T)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
  let row = wg.y * nwg.x + wg.x;
  if (row >= p.rows) { return; }
  let base = row * p.d;
  let n = f32(p.d);
  var sum = 0.0;
  for (var i = li; i < p.d; i += T) { sum += x[base + i]; }
  let mean = reduce_sum(li, sum) / n;
  var sq = 0.0;
  for (var i = li; i < p.d; i += T) {
    let c = x[base + i] - mean;
    sq = fma(c, c, sq);
  }
  let inv = inverseSqrt(reduce_sum(li, sq) / n + p.eps);
  for (var i = li; i < p.d; i += T) { y[base + i] = (x[base + i] - mean) * inv * gamma[i] + beta[i]; }
}
`;
  return { key: 'layer-norm', code, params: 'uuf' };
}
