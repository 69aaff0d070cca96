#!/usr/bin/env node
// Copies the repository's LICENSE and THIRD_PARTY_NOTICES into web/, where `npm pack` takes them
// (a package holds only files under its own folder). The wasm builds in dist/ carry XNNPACK,
// SentencePiece, zlib, yaml-cpp and more, whose licences ask for their notices in every binary
// distribution; THIRD_PARTY_NOTICES is written by core/third_party/notices.py. Outside the
// repository (web/ copied on its own, as a package's folder is) the copies already in web/ are
// the package's. Silent on success: `npm pack --json` runs it (prepack) and its stdout must stay JSON.
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const web = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const LEGAL_FILES = ['LICENSE', 'THIRD_PARTY_NOTICES'];

for (const name of LEGAL_FILES) {
  const from = path.join(web, '..', name);
  const to = path.join(web, name);
  if (!existsSync(from)) {
    if (existsSync(to)) continue;
    console.error(`${from} is missing, and so is ${to}: the package cannot ship without it`);
    process.exit(1);
  }
  if (!existsSync(to) || !readFileSync(to).equals(readFileSync(from))) copyFileSync(from, to);
}
