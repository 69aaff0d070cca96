// The local model catalogue of tests/catalog with an en->ja pair (make_catalog.py --with-ja), served
// by tests/catalog/server.py, for the web-platform-tests, which translate English to Japanese.
// server.py logs every request path to `log` (one per line), for counting what a test fetched.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const catalogTools = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'catalog');

/** { url (the Remote Settings server, .../v1), requests() (the paths asked for so far), close() } */
export async function startJapaneseCatalog() {
  const work = mkdtempSync(path.join(os.tmpdir(), 'tformer-wpt-catalog-'));
  const made = path.join(work, 'made');
  const log = path.join(work, 'requests.log');
  const r = spawnSync('/usr/bin/python3', [path.join(catalogTools, 'make_catalog.py'), made, '--with-ja'], { encoding: 'utf8' });
  if (r.status !== 0) {
    rmSync(work, { recursive: true, force: true });
    throw new Error(`make_catalog.py failed (${r.status}): ${r.stderr}`);
  }
  const child = spawn('/usr/bin/python3', [path.join(catalogTools, 'server.py'), path.join(made, 'catalog'), '--log', log],
    { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      const m = /listening on (\S+)/.exec(String(d));
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`the catalogue server exited (${code})`)));
  });
  return {
    url,
    requests() {
      try {
        return readFileSync(log, 'utf8').split('\n').filter(Boolean);
      } catch {
        return [];
      }
    },
    async close() {
      child.kill();
      if (child.exitCode === null) await new Promise((resolve) => child.on('exit', resolve));
      rmSync(work, { recursive: true, force: true });
    },
  };
}
