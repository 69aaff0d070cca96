// A local model catalogue in Firefox's format for the JS tests: make_catalog.py writes it into a
// temporary folder and server.py serves it (see both for what the catalogue holds: fr->en, en->de,
// fr->de through English, and failure pairs xa..xf into English).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * Writes the catalogue and starts its server: { url (the Remote Settings server, .../v1), made
 * (make_catalog.py's folder), work (a temporary folder the caller may use), close() }.
 */
export async function startLocalCatalog() {
  const work = mkdtempSync(path.join(os.tmpdir(), 'tformer-local-catalog-'));
  const made = path.join(work, 'made');
  const r = spawnSync('/usr/bin/python3', [path.join(here, 'make_catalog.py'), made], { encoding: 'utf8' });
  if (r.status !== 0) {
    rmSync(work, { recursive: true, force: true });
    throw new Error(`make_catalog.py failed (${r.status}): ${r.stderr}`);
  }
  const child = spawn('/usr/bin/python3', [path.join(here, 'server.py'), path.join(made, 'catalog')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      const m = /listening on (\S+)/.exec(String(d));
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`the catalogue server exited (${code})`)));
  });
  return {
    url, made, work,
    async close() {
      child.kill();
      if (child.exitCode === null) await new Promise((resolve) => child.on('exit', resolve));
      rmSync(work, { recursive: true, force: true });
    },
  };
}
