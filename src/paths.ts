import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder holding mockyard's package.json, whether running from src/ (tests) or dist/src/ (built). */
export function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === 'mockyard') return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('cannot find the mockyard package root');
    dir = parent;
  }
}

export const fixturesRoot = (): string => path.join(packageRoot(), 'fixtures');

/** mockyard's version, from its package.json. */
export const packageVersion = (): string =>
  (JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
