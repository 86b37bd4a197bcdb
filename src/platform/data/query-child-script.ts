// Where the executor's child process code is: beside the bundle, in tsc's output, or compiled from source.
import { existsSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compiledScriptFile } from '../worker-script.js';

/**
 * The bundle has query-child.js beside its chunks, tsc's output has it at dist/src/query-child.js. Run from
 * TypeScript sources (tests), the child is bundled once per process with esbuild (a dev dependency): the
 * bundled file (compiledScriptFile) is what later calls find (no module state; a pool asks once).
 */
export function queryChildScript(): string {
  const dir = path.dirname(fileURLToPath(import.meta.url));
  for (const candidate of [path.join(dir, 'query-child.js'), path.join(dir, '..', '..', 'query-child.js')]) {
    if (existsSync(candidate)) return candidate;
  }
  const source = path.join(dir, '..', '..', 'query-child.ts');
  if (!existsSync(source)) throw new Error(`mockyard: no query process script next to ${dir}`);
  const outfile = compiledScriptFile('query-child');
  if (existsSync(outfile)) return outfile;
  const esbuild = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
  esbuild.buildSync({
    entryPoints: [source],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    outfile,
    packages: 'external',
    logLevel: 'error',
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
  process.once('exit', () => rmSync(outfile, { force: true }));
  return outfile;
}
