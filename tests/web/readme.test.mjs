// What the READMEs say, held to what they describe: the registry example's sizes are the shipped
// files' sizes, detectLanguage() is shown awaited (it returns a Promise), the page demo's paragraph
// names its target selector and its three views (page.html's own), and the top README's glossary
// example leads to the TSV format in docs/CLI.md, which documents every flag the CLI accepts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { nativeCli, repoRoot, webDir } from './helpers.mjs';
import { detectLanguage } from '../../web/src/index.js';

const read = (...parts) => readFileSync(path.join(repoRoot, ...parts), 'utf8');
const webReadme = read('web', 'README.md');
const readme = read('README.md');
const cliDoc = read('docs', 'CLI.md');
// The fenced blocks of a Markdown text that follow `heading`, up to the next heading of its level.
function section(markdown, heading) {
  const at = markdown.indexOf(heading);
  assert.ok(at >= 0, `no ${heading}`);
  const level = /^#+/.exec(heading)[0];
  const rest = markdown.slice(at + heading.length);
  const end = rest.search(new RegExp(`\\n${level} `));
  return end < 0 ? rest : rest.slice(0, end);
}
const codeBlocks = (markdown) => [...markdown.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1], code: m[2] }));

test("web/README: the registry example's sizes are the shipped files' sizes", () => {
  const [json] = codeBlocks(section(webReadme, '### Model registry')).filter((b) => b.lang === 'json');
  const registry = JSON.parse(json.code);
  const files = registry.models.flatMap((m) => [m, ...m.variants]);
  assert.ok(files.length >= 3);
  for (const f of files) {
    // URLs are relative to the registry file, web/demo/registry.json.
    const file = path.resolve(webDir, 'demo', f.url);
    assert.ok(existsSync(file), `${file} (models/tfm variants writes the int8 files)`);
    assert.equal(f.size, statSync(file).size, f.url);
  }
});

test('web/README: detectLanguage() is shown awaited, and resolves to what the README says', async () => {
  const calls = codeBlocks(webReadme).flatMap((b) => [...b.code.matchAll(/(\w+\s+)?detectLanguage\(/g)])
    .filter((m) => !/^import/.test(m.input.slice(m.input.lastIndexOf('\n', m.index) + 1)));
  assert.ok(calls.length > 0, 'a call of detectLanguage() is shown');
  for (const m of calls) assert.equal(m[1]?.trim(), 'await', m.input.slice(m.index - 40, m.index + 40));
  const { languages, reliable } = await detectLanguage('Der Zug kommt um acht Uhr an.');
  assert.equal(languages[0].language, 'de');
  assert.equal(reliable, true);
});

test('web/README: the page demo is described as page.html is: the articles, the target list, the three views', () => {
  const page = read('web', 'demo', 'page.html');
  const paragraph = webReadme.slice(webReadme.indexOf('**Translate a web page**'), webReadme.indexOf('**Use your own model**'));
  const views = [...page.slice(page.indexOf('<select id="view">'), page.indexOf('</select>', page.indexOf('<select id="view">')))
    .matchAll(/<option value="(\w+)"/g)].map((m) => m[1]);
  assert.deepEqual(views, ['translation', 'below', 'beside']);
  for (const said of ['on hover', 'below', 'side by side', '"into:"', 'in English', 'Article selector']) assert.ok(paragraph.includes(said), said);
  assert.ok(page.includes('<label for="target-language">into:</label>'));
  assert.doesNotMatch(paragraph, /translates it in place into English/);
});

test("README: the glossary example leads to docs/CLI.md's TSV format, which documents every flag the CLI takes", () => {
  const line = readme.split('\n').find((l) => l.includes('terms.tsv') && l.includes('printf'));
  assert.match(line, /docs\/CLI\.md#glossaries/);
  const glossaries = section(cliDoc, '### Glossaries');
  // The flags, as the CLI's own refusal of an unknown one lists them.
  const dir = mkdtempSync(path.join(tmpdir(), 'tformer-readme-'));
  try {
    writeFileSync(path.join(dir, 'g.tsv'), 'Haus\tbuilding\tz\n');
    const r = spawnSync(nativeCli, ['translate', '-m', path.join(repoRoot, 'models', 'tiny.deen', 'model.tfm'), '--glossary', path.join(dir, 'g.tsv')],
      { input: 'Hallo\n', encoding: 'utf8' });
    const flags = [.../unknown flag 'z' \(([^)]*)\)/.exec(r.stderr)[1].matchAll(/(\w): /g)].map((m) => m[1]);
    assert.deepEqual(flags, ['i', 'c']);
    for (const flag of flags) assert.match(glossaries, new RegExp(`\`${flag}\`: `), `flag ${flag}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assert.match(glossaries, /source<TAB>target<TAB>flags/);
});
