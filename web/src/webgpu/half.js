// IEEE binary16 conversions for weights uploaded as f16 (Float16Array is not in node 20 nor in
// every browser). Round to nearest, ties to even; overflow to inf; subnormals kept.

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

export function f32ToF16Bits(value) {
  f32[0] = value;
  const x = u32[0];
  const sign = (x >>> 16) & 0x8000;
  const exponent = (x >>> 23) & 0xff;
  let mantissa = x & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa ? 0x200 : 0);
  const e = exponent - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    // Subnormal half: value / 2^-24, rounded.
    if (e < -10) return sign;
    mantissa |= 0x800000;
    const shift = 14 - e;
    let h = mantissa >>> shift;
    const rest = mantissa & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    if (rest > halfway || (rest === halfway && (h & 1))) h += 1;
    return sign | h;
  }
  let h = (e << 10) | (mantissa >>> 13);
  const rest = mantissa & 0x1fff;
  // A carry out of the mantissa correctly bumps the exponent (up to inf).
  if (rest > 0x1000 || (rest === 0x1000 && (h & 1))) h += 1;
  return sign | h;
}

export function f16BitsToF32(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const e = (h >>> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return sign * m * 2 ** -24;
  if (e === 31) return m ? NaN : sign * Infinity;
  return sign * (1 + m / 1024) * 2 ** (e - 15);
}

// Rows of a row-major [rows, cols] f32 matrix as f16, each row padded to an even length so that a
// row is a whole number of 32-bit words (pairs). Returns the Uint16Array and the row stride in pairs.
export function toF16Rows(data, rows, cols) {
  const stride = cols + (cols & 1);
  const out = new Uint16Array(rows * stride);
  for (let r = 0; r < rows; ++r)
    for (let c = 0; c < cols; ++c) out[r * stride + c] = f32ToF16Bits(data[r * cols + c]);
  return { halves: out, pairsPerRow: stride / 2 };
}
