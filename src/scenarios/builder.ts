// Builds scenarios on a worker thread: a 20 MB body is parsed, checked and loaded there, and the event loop
// only opens the finished database file.
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { packageRoot } from '../paths.js';
import type { BuiltScenario } from './build.js';
import { ScenarioError } from './errors.js';

export interface BuildJob {
  id: number;
  name: string;
  text: string;
}

export type BuildOutcome =
  | { id: number; built: BuiltScenario }
  | { id: number; refused: { pointer: string | null; problem: string; statusCode: number } }
  | { id: number; failed: string };

let compiled: Promise<URL> | undefined;

/**
 * The worker's script. The bundle carries it as dist/bundle/scenarios/build-worker.js; running from the
 * TypeScript sources (tests, a checkout), it is compiled once per process with esbuild, as the fresh
 * fixture builder is, since a worker thread cannot load .ts files on Node 20.
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

/** How long an idle builder thread stays: PUTs in a row reuse it, and then its heap is given back. */
const IDLE_MS = 2000;

/**
 * One worker, started for the first build and ended once no build has come for IDLE_MS, so the memory a
 * big body took on its heap is given back. Builds run one at a time, in order.
 */
export class ScenarioBuilder {
  #worker: Worker | undefined;
  #next = 1;
  #pending = new Map<number, { resolve(b: BuiltScenario): void; reject(e: Error): void }>();
  #closed = false;
  #idle: NodeJS.Timeout | undefined;

  async build(name: string, text: string): Promise<BuiltScenario> {
    if (this.#closed) throw new Error('mockyard is closing');
    clearTimeout(this.#idle);
    const worker = await this.#start();
    const id = this.#next++;
    return new Promise<BuiltScenario>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.postMessage({ id, name, text } satisfies BuildJob);
    });
  }

  async #start(): Promise<Worker> {
    if (this.#worker) return this.#worker;
    const script = await workerScript();
    if (this.#worker) return this.#worker;
    const worker = new Worker(script);
    worker.unref();
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
      if ('built' in outcome) rmSync(outcome.built.dir, { recursive: true, force: true });
      return;
    }
    if ('built' in outcome) waiting.resolve(outcome.built);
    else if ('refused' in outcome) {
      const { pointer, problem, statusCode } = outcome.refused;
      waiting.reject(new ScenarioError(pointer, problem, statusCode));
    } else waiting.reject(new Error(`scenario build failed: ${outcome.failed}`));
  }

  #fail(worker: Worker, err: Error): void {
    if (this.#worker !== worker) return;
    this.#worker = undefined;
    const waiting = [...this.#pending.values()];
    this.#pending.clear();
    for (const w of waiting) w.reject(err);
  }

  #stop(): void {
    const worker = this.#worker;
    this.#worker = undefined;
    void worker?.terminate();
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#idle);
    this.#stop();
  }
}
