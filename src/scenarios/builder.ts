// Builds scenarios in a child process: a 20 MB body is parsed, checked and loaded there, the event loop only
// opens the finished database file, and all the memory a build took goes back to the system when it ends.
import { mkdirSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fork, type ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';
import { packageRoot } from '../paths.js';
import type { BuiltScenario } from './build.js';
import { ScenarioError } from './errors.js';

export interface BuildJob {
  id: number;
  name: string;
  /** The body's bytes (UTF-8 JSON). */
  body: Uint8Array;
}

export type BuildOutcome =
  | { id: number; built: BuiltScenario }
  | { id: number; refused: { pointer: string | null; problem: string; statusCode: number } }
  | { id: number; failed: string };

let compiled: Promise<URL> | undefined;

/**
 * The worker's script. The bundle carries it as dist/bundle/scenarios/build-worker.js; running from the
 * TypeScript sources (tests, a checkout), it is compiled once per process with esbuild, as the fresh
 * fixture builder is, since Node 20 cannot run .ts files.
 */
function workerScript(): Promise<URL> {
  const here = fileURLToPath(import.meta.url);
  if (!here.endsWith('.ts'))
    return Promise.resolve(pathToFileURL(path.join(packageRoot(), 'dist', 'bundle', 'scenarios', 'build-worker.js')));
  compiled ??= (async () => {
    const esbuild = await import('esbuild');
    const dir = path.join(packageRoot(), 'node_modules', '.cache', 'mockyard');
    mkdirSync(dir, { recursive: true });
    const outfile = path.join(dir, `scenario-worker-${process.pid}.mjs`);
    await esbuild.build({
      entryPoints: [path.join(path.dirname(here), 'build-worker.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      outfile,
      packages: 'external',
      logLevel: 'error',
    });
    process.once('exit', () => rmSync(outfile, { force: true }));
    return pathToFileURL(outfile);
  })();
  return compiled;
}

/** How long an idle builder process stays: PUTs in a row reuse it, and then its memory is given back. */
const IDLE_MS = 2000;

/**
 * One child process, started for the first build and ended once no build has come for IDLE_MS. (A worker
 * thread's memory stays in this process's allocator after the thread ends; a process's does not.) Builds
 * run one at a time, in order.
 */
export class ScenarioBuilder {
  #worker: ChildProcess | undefined;
  #next = 1;
  #pending = new Map<number, { resolve(b: BuiltScenario): void; reject(e: Error): void }>();
  #closed = false;
  #idle: NodeJS.Timeout | undefined;

  async build(name: string, text: string | Buffer): Promise<BuiltScenario> {
    if (this.#closed) throw new Error('mockyard is closing');
    clearTimeout(this.#idle);
    const worker = await this.#start();
    const id = this.#next++;
    return new Promise<BuiltScenario>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      const body = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
      worker.send({ id, name, body } satisfies BuildJob);
    });
  }

  async #start(): Promise<ChildProcess> {
    if (this.#worker) return this.#worker;
    const script = await workerScript();
    if (this.#worker) return this.#worker;
    // Structured clone over IPC: the body goes as bytes, not as JSON text inside JSON.
    const worker = fork(fileURLToPath(script), [], {
      serialization: 'advanced',
      execArgv: [],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    // It never keeps mockyard running by itself; the server's own sockets do.
    worker.unref();
    worker.channel?.unref();
    try {
      // Below the server's priority: on a small machine the build must not take a core from the event loop.
      if (worker.pid !== undefined) setPriority(worker.pid, 10);
    } catch {
      // Not permitted here: the build competes as an equal.
    }
    worker.on('message', (outcome: BuildOutcome) => this.#settle(outcome));
    worker.on('error', (err) => this.#fail(worker, err));
    worker.on('exit', () => this.#fail(worker, new Error('the scenario builder stopped')));
    this.#worker = worker;
    return worker;
  }

  #settle(outcome: BuildOutcome): void {
    const waiting = this.#pending.get(outcome.id);
    this.#pending.delete(outcome.id);
    if (this.#pending.size === 0) {
      this.#idle = setTimeout(() => this.#stop(), IDLE_MS);
      this.#idle.unref();
    }
    if (!waiting) {
      if ('built' in outcome) void rm(outcome.built.dir, { recursive: true, force: true }).catch(() => undefined);
      return;
    }
    if ('built' in outcome) waiting.resolve(outcome.built);
    else if ('refused' in outcome) {
      const { pointer, problem, statusCode } = outcome.refused;
      waiting.reject(new ScenarioError(pointer, problem, statusCode));
    } else waiting.reject(new Error(`scenario build failed: ${outcome.failed}`));
  }

  #fail(worker: ChildProcess, err: Error): void {
    if (this.#worker !== worker) return;
    this.#worker = undefined;
    const waiting = [...this.#pending.values()];
    this.#pending.clear();
    for (const w of waiting) w.reject(err);
  }

  #stop(): void {
    const worker = this.#worker;
    this.#worker = undefined;
    worker?.kill();
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#idle);
    this.#stop();
  }
}
