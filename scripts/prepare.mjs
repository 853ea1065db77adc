#!/usr/bin/env node
// Makes a fresh clone runnable: `npm ci` when node_modules is missing or older than the lock file,
// and `npm run build` (with --build) when any source is newer than the build.
// Plain Node with no dependencies, so that it can run before anything is installed.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const run = (cmd) => execSync(cmd, { cwd: root, stdio: 'inherit' });
const mtime = (p) => (existsSync(p) ? statSync(p).mtimeMs : 0);

function newest(dir) {
  if (!existsSync(dir)) return 0;
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return latest;
}

const installed = join(root, 'node_modules', '.package-lock.json');
if (mtime(installed) < mtime(join(root, 'package-lock.json'))) {
  console.error('bullbeat: installing dependencies (npm ci)');
  run('npm ci --no-audit --no-fund');
}

if (process.argv.includes('--build')) {
  const sources = Math.max(
    ...['src', 'workers', 'dashboard', 'examples'].map((d) => newest(join(root, d))),
    mtime(join(root, 'tsconfig.json')),
    mtime(join(root, 'tsconfig.build.json')),
  );
  if (newest(join(root, 'dist')) < sources) {
    console.error('bullbeat: building (npm run build)');
    run('npm run build --silent');
  }
}
