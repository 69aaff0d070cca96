// The TypeScript declarations (web/types/index.d.ts) compile, and describe the API as used in
// tests/web/types/usage.ts (misuses there must be type errors). Needs tsc (Debian node-typescript).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './helpers.mjs';

test('types/index.d.ts: tsc --noEmit --strict on a usage example', () => {
  const r = spawnSync('tsc', ['-p', path.join(repoRoot, 'tests', 'web', 'types', 'tsconfig.json')], { encoding: 'utf8' });
  assert.notEqual(r.error?.code, 'ENOENT', 'tsc not found (apt-get install node-typescript)');
  assert.equal(r.status, 0, r.stdout + r.stderr);
});
