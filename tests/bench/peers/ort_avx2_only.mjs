#!/usr/bin/env node
// A copy of onnxruntime-node's libonnxruntime.so.1 that picks the kernels an AVX2-only x86 CPU gets,
// for benchmarking ONNX Runtime native as on such a CPU while running on one with AVX-512.
//
//   node tests/bench/peers/ort_avx2_only.mjs OUT.so      (then LD_PRELOAD=OUT.so node ... onnxruntime-node)
//
// Why a patched copy: ONNX Runtime's kernel library (MLAS) chooses its kernels once, from the
// cpuid and xgetbv instructions, and has no setting to choose otherwise. tformer's side of the
// same comparison is a build whose XNNPACK has only its AVX2 kernels (-DTFORMER_X86_AVX2_ONLY=ON).
// Two edits, each found by its exact bytes, so another ONNX Runtime build is refused, not mispatched:
// - Every `xor ecx,ecx; xgetbv` (read XCR0: which register states the OS saves) becomes
//   `xor ecx,ecx; push 7; pop rax`: x87, SSE and AVX state only, no AVX-512 (opmask, ZMM) and no
//   AMX state. MLAS then skips its AVX-512 and AMX kernels (it checks `xcr0 & 0xE0`), as on a CPU
//   without AVX-512. Two sites in 1.30.0: MLAS's platform setup and ONNX Runtime's CPUIDInfo.
// - MLAS's AVX-VNNI test (`mov eax,7; mov ecx,1; cpuid; test al,0x10`: leaf 7.1 EAX bit 4) becomes
//   `test al,0`, so its 256-bit VNNI int8 kernels are skipped too: AVX2 CPUs without AVX-512
//   (AMD Zen 2/3, Intel before Alder Lake) have no AVX-VNNI.
// `perf` on the patched library shows the kernels: f32 ymm vfmadd (MLAS FMA3 SGEMM), int8 ymm
// vpmaddubsw + vpmaddwd (MLAS AVX2 U8S8), no zmm and no vpdpbusd.
// LD_PRELOAD is how it is used: the binding's NEEDED libonnxruntime.so.1 is then this copy (same soname).
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

const XGETBV = Buffer.from('31c90f01d0', 'hex');            // xor ecx,ecx; xgetbv
const XCR0_AVX = Buffer.from('31c96a0758', 'hex');          // xor ecx,ecx; push 7; pop rax
const AVX_VNNI_TEST = Buffer.from('b807000000b9010000000fa2a810', 'hex');  // mov eax,7; mov ecx,1; cpuid; test al,0x10

/** onnxruntime-node's x64 Linux library, resolved from web/'s dev dependencies. */
export function ortLibrary() {
  const require = createRequire(join(repo, 'web', 'package.json'));
  const pkg = dirname(require.resolve('onnxruntime-node/package.json'));
  return join(pkg, 'bin', 'napi-v6', 'linux', 'x64', 'libonnxruntime.so.1');
}

function offsetsOf(bytes, pattern) {
  const at = [];
  for (let i = bytes.indexOf(pattern); i !== -1; i = bytes.indexOf(pattern, i + 1)) at.push(i);
  return at;
}

/**
 * Writes the patched copy of `source` to `out`; returns what it changed.
 * Throws when the library does not hold the expected instruction sequences.
 */
export function writeAvx2OnlyOrt(out, source = ortLibrary()) {
  if (process.arch !== 'x64' || process.platform !== 'linux') throw new Error('ort_avx2_only: x86-64 Linux only');
  const bytes = readFileSync(source);
  const sourceSha256 = createHash('sha256').update(bytes).digest('hex');  // before the edits below
  const xgetbv = offsetsOf(bytes, XGETBV);
  const vnni = offsetsOf(bytes, AVX_VNNI_TEST);
  if (xgetbv.length < 1 || vnni.length !== 1) {
    throw new Error(`${source}: expected at least one 'xor ecx,ecx; xgetbv' and one AVX-VNNI cpuid test, found ${xgetbv.length} and `
      + `${vnni.length}: not an onnxruntime build this patch knows (written for onnxruntime-node 1.30.0)`);
  }
  for (const at of xgetbv) XCR0_AVX.copy(bytes, at);
  bytes[vnni[0] + AVX_VNNI_TEST.length - 1] = 0x00;  // test al,0x10 -> test al,0
  writeFileSync(out, bytes);
  return {
    source, out, source_sha256: sourceSha256,
    xgetbv_sites: xgetbv.map((x) => `0x${x.toString(16)}`), avx_vnni_test: `0x${vnni[0].toString(16)}`,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const out = process.argv[2];
  if (!out) {
    console.error('usage: node tests/bench/peers/ort_avx2_only.mjs OUT.so');
    process.exit(2);
  }
  try {
    const r = writeAvx2OnlyOrt(resolve(out));
    console.log(`wrote ${r.out}: XCR0 reads at ${r.xgetbv_sites.join(', ')} report AVX state only; AVX-VNNI test at ${r.avx_vnni_test} off`);
  } catch (e) {
    console.error(`ort_avx2_only: ${e.message}`);
    process.exit(1);
  }
}
