#!/usr/bin/env node
// Top-1 accuracy of the language detector (CLD2, `tformer detect`) on FLORES-200 dev: per
// language, on whole sentences and on their first 20 characters (code points), against the
// language each file is labelled with. Prints a Markdown table (docs/BENCHMARKS.md,
// "Language detection") and, with --json FILE, the figures. With --node, the package in Node
// (web/src, the wasm build) detects every text too, and the texts whose ranked languages or
// confidences differ from the CLI's (`tformer detect --all`) are counted: the figures hold for both.
//
//   node tests/bench/langid_accuracy.mjs [--data DIR] [--cli build/tformer] [--json OUT.json] [--node]
//
// DIR defaults to ../shared/data/langid/flores200-dev (52 files <code>_<Script>.dev, 997 lines each).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

// FLORES-200's code -> the BCP 47 tags that count as right. Norwegian Bokmål may be named by its
// macrolanguage "no", which is what CLD2 reports; every other file has one tag.
export const EXPECTED = {
  als_Latn: ['sq'], arb_Arab: ['ar'], azj_Latn: ['az'], bel_Cyrl: ['be'], ben_Beng: ['bn'], bos_Latn: ['bs'],
  bul_Cyrl: ['bg'], cat_Latn: ['ca'], ces_Latn: ['cs'], dan_Latn: ['da'], deu_Latn: ['de'], ell_Grek: ['el'],
  eng_Latn: ['en'], est_Latn: ['et'], fin_Latn: ['fi'], fra_Latn: ['fr'], guj_Gujr: ['gu'], heb_Hebr: ['he'],
  hin_Deva: ['hi'], hrv_Latn: ['hr'], hun_Latn: ['hu'], ind_Latn: ['id'], isl_Latn: ['is'], ita_Latn: ['it'],
  jpn_Jpan: ['ja'], kan_Knda: ['kn'], kor_Hang: ['ko'], lit_Latn: ['lt'], lvs_Latn: ['lv'], mal_Mlym: ['ml'],
  mlt_Latn: ['mt'], nld_Latn: ['nl'], nno_Latn: ['nn'], nob_Latn: ['nb', 'no'], pes_Arab: ['fa'], pol_Latn: ['pl'],
  por_Latn: ['pt'], ron_Latn: ['ro'], rus_Cyrl: ['ru'], slk_Latn: ['sk'], slv_Latn: ['sl'], spa_Latn: ['es'],
  srp_Cyrl: ['sr'], swe_Latn: ['sv'], tam_Taml: ['ta'], tel_Telu: ['te'], tur_Latn: ['tr'], ukr_Cyrl: ['uk'],
  vie_Latn: ['vi'], zho_Hans: ['zh'], zho_Hant: ['zh-Hant'], zsm_Latn: ['ms'],
};

export const PREFIX_CHARS = 20;

/** The first `n` code points of each line. */
export function prefixes(lines, n = PREFIX_CHARS) {
  return lines.map((line) => [...line].slice(0, n).join(''));
}

/** `tformer detect` on lines: [{language, confidence}] per line. */
export function cliDetect(cli, lines) {
  const out = execFileSync(cli, ['detect'], { input: `${lines.join('\n')}\n`, encoding: 'utf8', maxBuffer: 1 << 28 });
  return out.replace(/\n$/, '').split('\n').map((l) => {
    const [language, confidence] = l.split('\t');
    return { language, confidence: Number(confidence) };
  });
}

/** `tformer detect --all` on lines: the ranked list of each, [[language, confidence], ...]. */
function cliRanked(cli, lines) {
  const out = execFileSync(cli, ['detect', '--all'], { input: `${lines.join('\n')}\n`, encoding: 'utf8', maxBuffer: 1 << 28 });
  return out.replace(/\n$/, '').split('\n').map((l) => {
    const f = l.split('\t');
    const ranked = [];
    for (let i = 0; i < f.length; i += 2) ranked.push([f[i], Number(f[i + 1])]);
    return ranked;
  });
}

// How many of `lines` the package in Node ranks otherwise than the CLI (languages, or confidences
// beyond 1e-9: the CLI prints CLD2's whole percentages exactly).
async function nodeDisagreements(cli, lines) {
  const { detectLanguage } = await import(path.join(root, 'web', 'src', 'index.js'));
  const expected = cliRanked(cli, lines);
  let differ = 0;
  for (const [i, line] of lines.entries()) {
    const got = (await detectLanguage(line)).ranked.map((r) => [r.detectedLanguage, r.confidence]);
    const want = expected[i];
    if (got.length !== want.length || got.some(([l, c], k) => l !== want[k][0] || Math.abs(c - want[k][1]) > 1e-9)) differ++;
  }
  return differ;
}

export function readFlores(dir) {
  return Object.fromEntries(readdirSync(dir).filter((f) => f.endsWith('.dev')).sort().map((f) => [
    f.replace(/\.dev$/, ''), readFileSync(path.join(dir, f), 'utf8').replace(/\n$/, '').split('\n')]));
}

async function main() {
  const { values: a } = parseArgs({ options: {
    data: { type: 'string', default: path.resolve(root, '..', 'shared', 'data', 'langid', 'flores200-dev') },
    cli: { type: 'string', default: path.join(root, 'build', 'tformer') },
    json: { type: 'string' },
    node: { type: 'boolean', default: false },
  } });
  const sets = readFlores(a.data);
  const rows = [];
  for (const [code, lines] of Object.entries(sets)) {
    const expected = EXPECTED[code];
    if (!expected) throw new Error(`${code}: no expected tag (add it to EXPECTED)`);
    const score = (results) => {
      const right = results.filter((r) => expected.includes(r.language)).length;
      const counts = new Map();
      for (const r of results) if (!expected.includes(r.language)) counts.set(r.language, (counts.get(r.language) ?? 0) + 1);
      const confusions = [...counts].sort((x, y) => y[1] - x[1]).slice(0, 2).map(([l, n]) => `${l} ${n}`);
      return { accuracy: right / results.length, confusions };
    };
    const whole = score(cliDetect(a.cli, lines));
    const prefix = score(cliDetect(a.cli, prefixes(lines)));
    rows.push({ code, expected: expected.join('/'), lines: lines.length, whole, prefix });
  }
  const mean = (key) => rows.reduce((s, r) => s + r[key].accuracy, 0) / rows.length;
  const pct = (x) => (100 * x).toFixed(1);
  console.log(`| FLORES-200 | expected | whole sentences | most frequent errors | first ${PREFIX_CHARS} characters | most frequent errors |`);
  console.log('|---|---|---:|---|---:|---|');
  for (const r of rows)
    console.log(`| ${r.code} | ${r.expected} | ${pct(r.whole.accuracy)} | ${r.whole.confusions.join(', ')} | ${pct(r.prefix.accuracy)} | ${r.prefix.confusions.join(', ')} |`);
  console.log(`| **mean of ${rows.length}** | | **${pct(mean('whole'))}** | | **${pct(mean('prefix'))}** | |`);
  let node = null;
  if (a.node) {
    const texts = Object.values(sets).flatMap((lines) => [...lines, ...prefixes(lines)]);
    node = { texts: texts.length, differ: await nodeDisagreements(a.cli, texts) };
    console.log(`\nThe package in Node against the CLI: ${node.differ} of ${node.texts} texts ranked otherwise`);
  }
  if (a.json) writeFileSync(a.json, `${JSON.stringify({ rows, mean_whole: mean('whole'), mean_prefix: mean('prefix'), node }, null, 1)}\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
