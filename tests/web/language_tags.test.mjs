// The polyfill's language tags (web/src/standard/language-tags.js) against the table the engine is
// held to as well (tests/fixtures/language_tags.json; tests/core/test_language_tags.cc): one rule
// for tags in the package, its polyfill, the CLI and the engine's catalogue.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './helpers.mjs';
import { canonicalTag, bestFit } from '../../web/src/standard/language-tags.js';

const table = JSON.parse(readFileSync(path.join(repoRoot, 'tests', 'fixtures', 'language_tags.json'), 'utf8'));

test('language tags: canonical forms and refusals as the table has them', () => {
  assert.ok(table.canonical.length > 50);
  for (const [tag, expected] of table.canonical) {
    if (expected === null) assert.throws(() => canonicalTag(tag), RangeError, JSON.stringify(tag));
    else assert.equal(canonicalTag(tag), expected, JSON.stringify(tag));
  }
});

test('language tags: best fits as the table has them', () => {
  assert.ok(table.best_fit.length > 30);
  for (const [available, requested, expected] of table.best_fit) {
    assert.equal(bestFit(available, requested) ?? null, expected, `${JSON.stringify(available)} fit for ${requested}`);
  }
});
