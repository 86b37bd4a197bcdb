// Where the query worker's module is: next to this one when built (tsc's output, or the bundle where it is
// an entry point of its own); compiled once on the spot when running from the TypeScript sources (tests).
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

let compiled: string | undefined;

export function queryWorkerFile(): URL | string {
  const built = new URL('./query-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(built))) return built;
  if (compiled) return compiled;
  const source = fileURLToPath(new URL('./query-worker.ts', import.meta.url));
  // esbuild is a development dependency: only a checkout runs the sources.
  const esbuild = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
  const dir = path.join(path.dirname(source), '..', '..', '..', 'node_modules', '.cache', 'mockyard');
  mkdirSync(dir, { recursive: true });
  const outfile = path.join(dir, `query-worker-${process.pid}.mjs`);
  esbuild.buildSync({
    entryPoints: [source],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    packages: 'external',
    logLevel: 'error',
  });
  compiled = outfile;
  process.once('exit', () => rmSync(outfile, { force: true }));
  return compiled;
}
