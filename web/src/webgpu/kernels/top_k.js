// The few numbers per row that the search needs from the logits [rows, n] of a decoder step, so
// that a readback is rows x (3 + 2k) floats instead of rows x n (TranslationSession's
// provideCandidates): the row's max m, log(sum(exp(x - m))), the logit of EOS, then the k largest
// logits and their ids as floats (largest first; ties: lower id), leaving out one id (<unk> when
// the model suppresses it; 0xffffffff: none). The search rules (log-probabilities, <unk>, EOS at the
// length limit, beams) stay in C++, which turns these into the log-softmax of ops::log_softmax.
//
// One workgroup of 256 threads per row (rows fold into 2-D dispatches): a max pass, a sum pass,
// then k selection passes, each taking the best element ranked after the previous pick. k is
// small (1 for greedy search, 2 x beam for beam search), n is the vocabulary.
export const TOP_K_THREADS = 256;
export const NO_TOKEN = 0xffffffff;

export function logSoftmaxTopKKernel() {
  const code = /* wgsl */ `
struct Params { rows: u32, n: u32, k: u32, exclude: u32, eos: u32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

const T = ${TOP_K_THREADS}u;
const NONE = ${NO_TOKEN}u;
var<workgroup> rv: array<f32, T>;
var<workgroup> ri: array<u32, T>;

// (v, i) ranks before (bv, bi): a larger value, then a lower id; anything ranks before NONE.
fn before(v: f32, i: u32, bv: f32, bi: u32) -> bool {
  return bi == NONE || v > bv || (v == bv && i < bi);
}

@compute @workgroup_size(T)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
  let row = wg.y * nwg.x + wg.x;
  if (row >= p.rows) { return; }
  let base = row * p.n;
  let stride = 3u + 2u * p.k;

  var m = bitcast<f32>(0xff7fffffu); // -FLT_MAX
  for (var c = li; c < p.n; c += T) { m = max(m, x[base + c]); }
  rv[li] = m;
  workgroupBarrier();
  for (var h = T / 2u; h > 0u; h /= 2u) {
    if (li < h) { rv[li] = max(rv[li], rv[li + h]); }
    workgroupBarrier();
  }
  m = rv[0];
  workgroupBarrier();
  var sum = 0.0;
  for (var c = li; c < p.n; c += T) { sum += exp(x[base + c] - m); }
  rv[li] = sum;
  workgroupBarrier();
  for (var h = T / 2u; h > 0u; h /= 2u) {
    if (li < h) { rv[li] += rv[li + h]; }
    workgroupBarrier();
  }
  if (li == 0u) {
    out[row * stride] = m;
    out[row * stride + 1u] = log(rv[0]);
    out[row * stride + 2u] = x[base + p.eos];
  }
  workgroupBarrier();

  var pv = 0.0;
  var pi = NONE;
  for (var j = 0u; j < p.k; j++) {
    var bv = 0.0;
    var bi = NONE;
    for (var c = li; c < p.n; c += T) {
      let v = x[base + c];
      // After the previous pick; none once the candidates ran out (then NONE is written).
      let after = j == 0u || (pi != NONE && (v < pv || (v == pv && c > pi)));
      if (c != p.exclude && v == v && after && before(v, c, bv, bi)) {
        bv = v;
        bi = c;
      }
    }
    rv[li] = bv;
    ri[li] = bi;
    workgroupBarrier();
    for (var h = T / 2u; h > 0u; h /= 2u) {
      if (li < h && ri[li + h] != NONE && before(rv[li + h], ri[li + h], rv[li], ri[li])) {
        rv[li] = rv[li + h];
        ri[li] = ri[li + h];
      }
      workgroupBarrier();
    }
    pv = rv[0];
    pi = ri[0];
    workgroupBarrier();
    if (li == 0u) {
      out[row * stride + 3u + 2u * j] = pv;
      out[row * stride + 4u + 2u * j] = f32(pi);
    }
  }
}
`;
  return { key: 'log-softmax-top-k', code, params: 'uuuuu' };
}
