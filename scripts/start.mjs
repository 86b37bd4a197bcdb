#!/usr/bin/env node
// `npm start` / `npm run fixtures`: bundle only when a source is newer than the bundle, then run the
// bundled CLI in this very process. No `a && b` shell chain stays between npm and the server, so a
// SIGTERM that npm (or npx) forwards reaches the server's own graceful shutdown.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bundle = path.join(root, 'dist', 'bundle', 'cli.js');
const SOURCES = ['src', 'fixtures', 'package.json', 'package-lock.json'];

function newestMtime(entry) {
  if (!existsSync(entry)) return 0;
  const stat = statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const child of readdirSync(entry)) newest = Math.max(newest, newestMtime(path.join(entry, child)));
  return newest;
}

const sourcesTime = Math.max(...SOURCES.map((s) => newestMtime(path.join(root, s))));
if (!existsSync(bundle) || statSync(bundle).mtimeMs < sourcesTime) {
  process.stderr.write(`mockyard: ${existsSync(bundle) ? 'sources changed since the last build' : 'no build yet'}; building (npm run bundle)\n`);
  const npm = process.env.npm_execpath;
  // Under npm, npm_execpath is npm's own CLI script; run it with this node so PATH does not matter.
  const result = npm
    ? spawnSync(process.execPath, [npm, 'run', 'bundle', '--silent'], { cwd: root, stdio: 'inherit' })
    : spawnSync('npm', ['run', 'bundle', '--silent'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  if (result.status !== 0) {
    process.stderr.write('mockyard: the build failed; see above\n');
    process.exit(result.status ?? 1);
  }
}
await import(pathToFileURL(bundle).href);
