// Tiled matrix product with bias: y[M,N] = x[M,K] W[N,K]^T (+ b[N]) (then relu/swish) (+ r[M,N]).
//
// W is the weight as PyTorch's nn.Linear stores it, row-major [out=N, in=K], uploaded once
// unchanged: each workgroup reads a 64 x 16 block of it, so no transposed copy is needed.
// 16 x 16 threads compute a 64 x 64 output tile, 4 x 4 outputs each, strided by 16 so that
// neighbouring threads write neighbouring columns. All loads are bounds-checked: any M, N, K works.
//
// Weight storage:
//   'f32'           array<f32>, row stride K
//   'f16'           f16 pairs in array<vec2<f16>>   (needs the `shader-f16` feature)
//   'f16-unpacked'  the same bytes as array<u32>, read with unpack2x16float (core WGSL; lets the
//                   f16 weights be checked on adapters without `shader-f16`, such as SwiftShader)
// Both f16 forms hold rows padded to an even K; their row stride counts pairs. Products and sums
// are always f32.
//
// The epilogue fuses what follows a linear layer in a Transformer: bias, activation, residual.
//
// matmulFewRowsKernel is the same product for few rows (the decoder's output projection: one row
// per live hypothesis, against a vocabulary of 16-32k columns), where a 64-row tile would be mostly
// padding: see its comment.

export const MATMUL_TILE = 64;
const ACTIVATIONS = { none: (v) => v, relu: (v) => `max(${v}, 0.0)`, swish: (v) => `(${v} / (1.0 + exp(-${v})))` };

export function matmulKernel({ weights = 'f32', bias = true, activation = 'none', residual = false } = {}) {
  if (!['f32', 'f16', 'f16-unpacked'].includes(weights)) throw new Error(`unknown weight storage ${weights}`);
  if (!(activation in ACTIVATIONS)) throw new Error(`unknown activation ${activation}`);
  const key = `matmul:${weights}:${bias ? 'bias' : 'nobias'}:${activation}:${residual ? 'residual' : ''}`;
  const weightType = { f32: 'f32', f16: 'vec2<f16>', 'f16-unpacked': 'u32' }[weights];
  let binding = 4;
  const biasBinding = bias ? binding++ : -1;
  const residualBinding = residual ? binding++ : -1;

  const loadWeights = weights === 'f32' ? /* wgsl */ `
    for (var i = 0u; i < 4u; i++) {
      let e = li + i * 256u;
      let n = e / TK;
      let k = e % TK;
      let gn = col0 + n;
      let gk = k0 + k;
      var v = 0.0;
      if (gn < p.N && gk < p.K) { v = w[gn * p.w_stride + gk]; }
      ws[k * TN + n] = v;
    }` : /* wgsl */ `
    for (var i = 0u; i < 2u; i++) {
      let e = li + i * 256u;
      let n = e / (TK / 2u);
      let kp = e % (TK / 2u);
      let gn = col0 + n;
      let gkp = k0 / 2u + kp;
      var v = vec2<f32>(0.0, 0.0);
      if (gn < p.N && gkp < p.w_stride) { v = ${weights === 'f16' ? 'vec2<f32>' : 'unpack2x16float'}(w[gn * p.w_stride + gkp]); }
      ws[(2u * kp) * TN + n] = v.x;
      ws[(2u * kp + 1u) * TN + n] = v.y;
    }`;

  const code = /* wgsl */ `
${weights === 'f16' ? 'enable f16;' : ''}
struct Params { M: u32, N: u32, K: u32, w_stride: u32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> w: array<${weightType}>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
${bias ? `@group(0) @binding(${biasBinding}) var<storage, read> b: array<f32>;` : ''}
${residual ? `@group(0) @binding(${residualBinding}) var<storage, read> r: array<f32>;` : ''}

const TM = 64u;
const TN = 64u;
const TK = 16u;
var<workgroup> xs: array<f32, 1024>; // [TK][TM]
var<workgroup> ws: array<f32, 1024>; // [TK][TN]

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
  let row0 = wg.y * TM;
  let col0 = wg.x * TN;
  var acc: array<array<f32, 4>, 4>;
  for (var k0 = 0u; k0 < p.K; k0 += TK) {
    for (var i = 0u; i < 4u; i++) {
      let e = li + i * 256u;
      let r = e / TK;
      let k = e % TK;
      let gr = row0 + r;
      let gk = k0 + k;
      var v = 0.0;
      if (gr < p.M && gk < p.K) { v = x[gr * p.K + gk]; }
      xs[k * TM + r] = v;
    }
${loadWeights}
    workgroupBarrier();
    for (var k = 0u; k < TK; k++) {
      var a: array<f32, 4>;
      var c: array<f32, 4>;
      for (var i = 0u; i < 4u; i++) { a[i] = xs[k * TM + lid.y + 16u * i]; }
      for (var j = 0u; j < 4u; j++) { c[j] = ws[k * TN + lid.x + 16u * j]; }
      for (var i = 0u; i < 4u; i++) {
        for (var j = 0u; j < 4u; j++) { acc[i][j] = fma(a[i], c[j], acc[i][j]); }
      }
    }
    workgroupBarrier();
  }
  for (var i = 0u; i < 4u; i++) {
    let row = row0 + lid.y + 16u * i;
    for (var j = 0u; j < 4u; j++) {
      let col = col0 + lid.x + 16u * j;
      if (row < p.M && col < p.N) {
        var v = acc[i][j]${bias ? ' + b[col]' : ''};
        v = ${ACTIVATIONS[activation]('v')};
        ${residual ? 'v += r[row * p.N + col];' : ''}
        y[row * p.N + col] = v;
      }
    }
  }
}
`;
  return { key, code, params: 'uuuu' };
}

// Work groups for an [M, N] output.
export function matmulWorkgroups(M, N) {
  return [Math.ceil(N / MATMUL_TILE), Math.ceil(M / MATMUL_TILE), 1];
}

// Few rows: a workgroup of 256 threads computes 32 columns for 8 rows; the 8 threads of a column
// split K between them (each reads pairs of weights, so neighbouring threads read neighbouring
// words of the weight row) and add up their partial sums at the end. No tile is staged in
// workgroup memory, so the only barrier is the final reduction. Same weight storages, parameters
// and epilogue as matmulKernel; rows past 8 take more workgroups along y.
export const FEW_ROWS = 8;
const FEW_COLUMNS = 32;
const LANES = 8;

export function matmulFewRowsKernel({ weights = 'f32', bias = true, activation = 'none', residual = false } = {}) {
  if (!['f32', 'f16', 'f16-unpacked'].includes(weights)) throw new Error(`unknown weight storage ${weights}`);
  if (!(activation in ACTIVATIONS)) throw new Error(`unknown activation ${activation}`);
  const key = `matmul-few-rows:${weights}:${bias ? 'bias' : 'nobias'}:${activation}:${residual ? 'residual' : ''}`;
  const weightType = { f32: 'f32', f16: 'vec2<f16>', 'f16-unpacked': 'u32' }[weights];
  let binding = 4;
  const biasBinding = bias ? binding++ : -1;
  const residualBinding = residual ? binding++ : -1;
  // The weights (k, k1) of row n, k1 = k + 1 clamped to K - 1; a weight past K is 0 (f16 rows are
  // padded with a zero, f32 masked), so x[k1] then adds nothing.
  const pair = weights === 'f32' ? /* wgsl */ `
      let w2 = vec2<f32>(w[n * p.w_stride + k], select(0.0, w[n * p.w_stride + k1], k + 1u < p.K));` : /* wgsl */ `
      let w2 = ${weights === 'f16' ? 'vec2<f32>' : 'unpack2x16float'}(w[n * p.w_stride + k / 2u]);`;

  const code = /* wgsl */ `
${weights === 'f16' ? 'enable f16;' : ''}
struct Params { M: u32, N: u32, K: u32, w_stride: u32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> w: array<${weightType}>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
${bias ? `@group(0) @binding(${biasBinding}) var<storage, read> b: array<f32>;` : ''}
${residual ? `@group(0) @binding(${residualBinding}) var<storage, read> r: array<f32>;` : ''}

const ROWS = ${FEW_ROWS}u;
const COLUMNS = ${FEW_COLUMNS}u;
const LANES = ${LANES}u;
var<workgroup> partial: array<f32, ${FEW_ROWS * FEW_COLUMNS * LANES}>; // [ROWS][COLUMNS * LANES]

@compute @workgroup_size(${FEW_COLUMNS * LANES})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  let column = li / LANES;
  let lane = li % LANES;
  let n = wg.x * COLUMNS + column;
  let row0 = wg.y * ROWS;
  let rows = min(ROWS, p.M - row0);
  var acc: array<f32, ${FEW_ROWS}>;
  if (n < p.N) {
    for (var k = 2u * lane; k < p.K; k += 2u * LANES) {
      let k1 = min(k + 1u, p.K - 1u);
${pair}
      for (var i = 0u; i < ROWS; i++) {
        if (i < rows) {
          let base = (row0 + i) * p.K;
          acc[i] = fma(w2.x, x[base + k], fma(w2.y, x[base + k1], acc[i]));
        }
      }
    }
  }
  for (var i = 0u; i < ROWS; i++) { partial[i * COLUMNS * LANES + li] = acc[i]; }
  workgroupBarrier();
  // Thread (column, lane) finishes row number lane of its column (ROWS == LANES).
  let row = row0 + lane;
  if (n < p.N && lane < rows) {
    var v = 0.0;
    for (var j = 0u; j < LANES; j++) { v += partial[lane * COLUMNS * LANES + column * LANES + j]; }
    ${bias ? 'v += b[n];' : ''}
    v = ${ACTIVATIONS[activation]('v')};
    ${residual ? 'v += r[row * p.N + n];' : ''}
    y[row * p.N + n] = v;
  }
}
`;
  return { key, code, params: 'uuuu' };
}

export function matmulFewRowsWorkgroups(M, N) {
  return [Math.ceil(N / FEW_COLUMNS), Math.ceil(M / FEW_ROWS), 1];
}
