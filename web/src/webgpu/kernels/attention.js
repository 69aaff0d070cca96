// Multi-head attention over a padded batch, in three kernels that keep everything on the GPU:
//   scores  s[b,h,i,j] = (q[b,i,h] . k[b,j,h]) / sqrt(dh), or MASKED where j >= length[b]
//   softmax over j                                    (kernels/softmax.js)
//   values  o[b,i,h]   = sum_j s[b,h,i,j] v[b,j,h]    (j < length[b] only)
// Activations are rows of a padded batch [B, S, *]: row b*S + t. Heads are contiguous d/h slices
// of a row. q, k, v are read at a row stride and a column offset so that they can sit side by side
// in one buffer: the output of one fused [q | k | v] (or [k | v]) linear layer.
// Queries and keys may have different lengths (Sq, Sk): the same kernels serve cross-attention.
//
// Both kernels are batched 16 x 16 tiled products, one (sentence, head) per workgroup z.

// What a masked score holds (exactly, as an f32): finite, so that no inf/NaN arithmetic is needed
// anywhere; softmax maps a row whose maximum is this low (every key masked) to zeros, not NaN.
export const MASKED_SCORE = Math.fround(-3.0e38);

export function attentionScoresKernel() {
  const code = /* wgsl */ `
struct Params { Sq: u32, Sk: u32, H: u32, dh: u32, q_stride: u32, q_off: u32, k_stride: u32, k_off: u32, scale: f32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> q: array<f32>;
@group(0) @binding(2) var<storage, read> k: array<f32>;
@group(0) @binding(3) var<storage, read> lengths: array<u32>;
@group(0) @binding(4) var<storage, read_write> s: array<f32>;

var<workgroup> qs: array<f32, 256>; // [c][i]
var<workgroup> ks: array<f32, 256>; // [c][j]

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let z = wg.z;
  let b = z / p.H;
  let h = z % p.H;
  let i0 = wg.y * 16u;
  let j0 = wg.x * 16u;
  let col = h * p.dh;
  var acc = 0.0;
  for (var c0 = 0u; c0 < p.dh; c0 += 16u) {
    let c = c0 + lid.x;
    let qi = i0 + lid.y;
    var qv = 0.0;
    if (qi < p.Sq && c < p.dh) { qv = q[(b * p.Sq + qi) * p.q_stride + p.q_off + col + c]; }
    qs[lid.x * 16u + lid.y] = qv;
    let kj = j0 + lid.y;
    var kv = 0.0;
    if (kj < p.Sk && c < p.dh) { kv = k[(b * p.Sk + kj) * p.k_stride + p.k_off + col + c]; }
    ks[lid.x * 16u + lid.y] = kv;
    workgroupBarrier();
    for (var cc = 0u; cc < 16u; cc++) { acc = fma(qs[cc * 16u + lid.y], ks[cc * 16u + lid.x], acc); }
    workgroupBarrier();
  }
  let i = i0 + lid.y;
  let j = j0 + lid.x;
  if (i < p.Sq && j < p.Sk) {
    var v = acc * p.scale;
    if (j >= lengths[b]) { v = ${MASKED_SCORE}; }
    s[((z * p.Sq) + i) * p.Sk + j] = v;
  }
}
`;
  return { key: 'attention-scores', code, params: 'uuuuuuuuf' };
}

export function attentionScoresWorkgroups(batch, heads, Sq, Sk) {
  return [Math.ceil(Sk / 16), Math.ceil(Sq / 16), batch * heads];
}

export function attentionValuesKernel() {
  const code = /* wgsl */ `
struct Params { Sq: u32, Sk: u32, H: u32, dh: u32, v_stride: u32, v_off: u32, o_stride: u32, o_off: u32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> probs: array<f32>;
@group(0) @binding(2) var<storage, read> v: array<f32>;
@group(0) @binding(3) var<storage, read> lengths: array<u32>;
@group(0) @binding(4) var<storage, read_write> o: array<f32>;

var<workgroup> ps: array<f32, 256>; // [j][i]
var<workgroup> vs: array<f32, 256>; // [j][c]

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let z = wg.z;
  let b = z / p.H;
  let h = z % p.H;
  let i0 = wg.y * 16u;
  let c0 = wg.x * 16u;
  let col = h * p.dh;
  // Keys past the sentence's length have zero weight: skip them (uniform per workgroup).
  let keys = min(p.Sk, lengths[b]);
  var acc = 0.0;
  for (var j0 = 0u; j0 < keys; j0 += 16u) {
    let pi = i0 + lid.y;
    let pj = j0 + lid.x;
    var pv = 0.0;
    if (pi < p.Sq && pj < keys) { pv = probs[((z * p.Sq) + pi) * p.Sk + pj]; }
    ps[lid.x * 16u + lid.y] = pv;
    let vj = j0 + lid.y;
    let vc = c0 + lid.x;
    var vv = 0.0;
    if (vj < keys && vc < p.dh) { vv = v[(b * p.Sk + vj) * p.v_stride + p.v_off + col + vc]; }
    vs[lid.y * 16u + lid.x] = vv;
    workgroupBarrier();
    for (var jj = 0u; jj < 16u; jj++) { acc = fma(ps[jj * 16u + lid.y], vs[jj * 16u + lid.x], acc); }
    workgroupBarrier();
  }
  let i = i0 + lid.y;
  let c = c0 + lid.x;
  if (i < p.Sq && c < p.dh) { o[(b * p.Sq + i) * p.o_stride + p.o_off + col + c] = acc; }
}
`;
  return { key: 'attention-values', code, params: 'uuuuuuuu' };
}

export function attentionValuesWorkgroups(batch, heads, Sq, headDim) {
  return [Math.ceil(headDim / 16), Math.ceil(Sq / 16), batch * heads];
}
