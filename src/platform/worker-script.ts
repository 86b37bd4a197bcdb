// A child process's or worker thread's script (beside the bundle's chunks, or compiled from the sources), and how
// a worker child process starts: unreferenced, below the server's priority.
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { setPriority } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildOptions, OutputFile } from 'esbuild';
import { packageRoot } from '../paths.js';

/**
 * Where a script compiled from the TypeScript sources goes (node_modules/.cache/mockyard, made if missing):
 * named by this process, its id and start time, so a file that a crashed process left is never taken for it.
 */
function compiledScriptFile(name: string): string {
  const dir = path.join(packageRoot(), 'node_modules', '.cache', 'mockyard');
  mkdirSync(dir, { recursive: true });
  return path.join(dir, `${name}-${process.pid}-${Math.round(performance.timeOrigin)}.mjs`);
}

/** esbuild's options for one entry compiled from the sources: those of the `bundle` script, banner included. */
function fromSources(entry: string) {
  return {
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    write: false,
    packages: 'external',
    logLevel: 'error',
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  } satisfies BuildOptions;
}

/**
 * Puts a compiled script in place whole (written beside, then renamed): two first calls at once both compile,
 * and a reader never sees half a file. It is removed when the process exits.
 */
function placeCompiled(outfile: string, built: { outputFiles: OutputFile[] }): string {
  const partial = `${outfile}.${randomUUID()}`;
  writeFileSync(partial, built.outputFiles[0]!.contents);
  renameSync(partial, outfile);
  process.once('exit', () => rmSync(outfile, { force: true }));
  return outfile;
}

/**
 * `entry` compiled from the sources with esbuild (a dev dependency), once per process: the compiled file
 * (compiledScriptFile) is what later calls find; no module state holds it. Synchronous, for callers that
 * cannot wait (the query executor starts its processes from a synchronous dispatch).
 */
export function compileScriptSync(name: string, entry: string): string {
  const outfile = compiledScriptFile(name);
  if (existsSync(outfile)) return outfile;
  const esbuild = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
  return placeCompiled(outfile, esbuild.buildSync(fromSources(entry)));
}

/**
 * A script found where a build put it (the first of `built` that exists: beside the bundle's chunks, or in tsc's
 * output), or else, run from the TypeScript sources, `source` compiled once per process (compileScriptSync).
 * Synchronous, like compileScriptSync.
 */
export function scriptFileSync(name: string, built: readonly string[], source: string): string {
  for (const candidate of built) if (existsSync(candidate)) return candidate;
  if (!existsSync(source)) throw new Error(`mockyard: no ${name} script at ${[...built, source].join(' or ')}`);
  return compileScriptSync(name, source);
}

/**
 * The file to start for an entry the bundle builds as `dist/bundle/<bundled>` (see the `bundle` script).
 * Run from the TypeScript sources (tests, a checkout), `src/<source>` is compiled once per process, as
 * compileScriptSync does, without holding the event loop while esbuild works.
 */
export async function workerScript(bundled: string, source: string): Promise<string> {
  if (!fileURLToPath(import.meta.url).endsWith('.ts')) return path.join(packageRoot(), 'dist', 'bundle', bundled);
  const outfile = compiledScriptFile(path.basename(source, '.ts'));
  if (existsSync(outfile)) return outfile;
  const esbuild = await import('esbuild');
  return placeCompiled(outfile, await esbuild.build(fromSources(path.join(packageRoot(), 'src', source))));
}

/**
 * Starts a worker script (see workerScript) as a child process with an IPC channel. It never keeps mockyard
 * running by itself; the server's own sockets do.
 */
export function forkWorker(script: string, args: readonly string[] = []): ChildProcess {
  const child = fork(script, [...args], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  child.unref();
  child.channel?.unref();
  lowerPriority(child);
  return child;
}

/**
 * Puts a child below the server's priority: on a small machine its burst of work must not take a core from the
 * event loop.
 */
export function lowerPriority(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) setPriority(child.pid, 10);
  } catch {
    // Not permitted here: the child competes as an equal.
  }
}
