// Row softmax in place over [rows, n], one workgroup of 64 threads per row (rows fold into 2-D
// dispatches past 65535). Masked entries (MASKED_SCORE) become exactly 0; a row with every entry
// masked becomes all zeros instead of NaN.
import { MASKED_SCORE } from './attention.js';

export const SOFTMAX_THREADS = 64;

export function softmaxKernel() {
  const code = /* wgsl */ `
struct Params { rows: u32, n: u32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> s: array<f32>;

const T = ${SOFTMAX_THREADS}u;
var<workgroup> red: array<f32, T>;

@compute @workgroup_size(T)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
  let row = wg.y * nwg.x + wg.x;
  if (row >= p.rows) { return; }
  let base = row * p.n;
  var m = ${MASKED_SCORE};
  for (var j = li; j < p.n; j += T) { m = max(m, s[base + j]); }
  red[li] = m;
  workgroupBarrier();
  for (var half = T / 2u; half > 0u; half /= 2u) {
    if (li < half) { red[li] = max(red[li], red[li + half]); }
    workgroupBarrier();
  }
  m = red[0];
  workgroupBarrier();
  var sum = 0.0;
  for (var j = li; j < p.n; j += T) { sum += exp(s[base + j] - m); }
  red[li] = sum;
  workgroupBarrier();
  for (var half = T / 2u; half > 0u; half /= 2u) {
    if (li < half) { red[li] += red[li + half]; }
    workgroupBarrier();
  }
  let inv = select(1.0 / red[0], 0.0, m <= ${MASKED_SCORE / 2});
  for (var j = li; j < p.n; j += T) { s[base + j] = exp(s[base + j] - m) * inv; }
}
`;
  return { key: 'softmax', code, params: 'uu' };
}
