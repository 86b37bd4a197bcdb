// Builds scenarios in a child process: a 20 MB body is parsed, checked and loaded there, the event loop only
// opens the finished database file, and all the memory a build took goes back to the system when it ends.
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { forkWorker, workerScript } from '../platform/worker-script.js';
import { scenarioDirPrefix, type BuiltScenario } from './build.js';
import { ScenarioError } from './errors.js';

export interface BuildJob {
  id: number;
  name: string;
  /**
   * A file holding the body's bytes (UTF-8 JSON); the builder reads and removes it. Written by the
   * thread pool, so the event loop never copies a 20 MB body into an IPC message (V8's serializer).
   */
  bodyPath: string;
  /**
   * The scenario's folder, made empty by the server: a builder killed in the middle of a build (past the
   * limit, or at close) cannot remove what it wrote there, so the server does once the builder has gone.
   */
  dir: string;
}

export type BuildOutcome =
  | { id: number; built: BuiltScenario }
  | { id: number; refused: { pointer: string | null; problem: string; statusCode: number } }
  | { id: number; failed: string };

/** A fresh name for a scenario body's file, readable only by this user. */
export const bodyFilePath = (): string =>
  path.join(os.tmpdir(), `mockyard-scenario-body-${process.pid}-${randomBytes(8).toString('hex')}.json`);

/** How long an idle builder process stays: PUTs in a row reuse it, and then its memory is given back. */
const IDLE_MS = 2000;

/**
 * How long one build may take, from the moment it is handed to the builder: a body within the size limit
 * builds in well under a second to a few seconds; one shaped to take minutes is refused (413) and its
 * builder process stopped, instead of working on unbounded.
 */
export const BUILD_LIMIT_MS = 60_000;

/** The builder's process, and the folders of the builds sent to it that it has not answered, by build id. */
interface Builder {
  process: ChildProcess;
  folders: Map<number, string>;
}

const removeFolder = (dir: string) => void rm(dir, { recursive: true, force: true }).catch(() => undefined);

/**
 * One child process, started for the first build and ended once no build has come for IDLE_MS. (A worker
 * thread's memory stays in this process's allocator after the thread ends; a process's does not.) Builds
 * run one at a time, in order.
 */
export class ScenarioBuilder {
  /**
   * `limitMs` bounds each build; `startTimer` starts its clock (tests pass one they fire themselves, so a build
   * is stopped at a moment they choose rather than after a wait).
   */
  constructor(
    readonly limitMs = BUILD_LIMIT_MS,
    private readonly startTimer: (overrun: () => void, ms: number) => NodeJS.Timeout | undefined = setTimeout,
  ) {}

  #worker: Builder | undefined;
  #next = 1;
  #pending = new Map<number, { resolve(b: BuiltScenario): void; reject(e: Error): void }>();
  #closed = false;
  #idle: NodeJS.Timeout | undefined;

  /** Builds from the body's bytes, written to a file first (tests and the programmatic API). */
  async build(name: string, text: string | Buffer): Promise<BuiltScenario> {
    const bodyPath = bodyFilePath();
    await writeFile(bodyPath, text, { mode: 0o600, flag: 'wx' });
    return this.buildFile(name, bodyPath);
  }

  /** Builds from a body file (see bodyFilePath); the file is removed whatever happens. */
  async buildFile(name: string, bodyPath: string): Promise<BuiltScenario> {
    try {
      if (this.#closed) throw new Error('mockyard is closing');
      clearTimeout(this.#idle);
      const dir = await mkdtemp(scenarioDirPrefix(name));
      let worker: Builder;
      try {
        worker = await this.#start();
      } catch (err) {
        removeFolder(dir);
        throw err;
      }
      const id = this.#next++;
      worker.folders.set(id, dir);
      let timer: NodeJS.Timeout | undefined;
      try {
        return await new Promise<BuiltScenario>((resolve, reject) => {
          this.#pending.set(id, { resolve, reject });
          timer = this.startTimer(() => this.#overrun(worker, id), this.limitMs);
          worker.process.send({ id, name, bodyPath, dir } satisfies BuildJob);
        });
      } finally {
        clearTimeout(timer);
      }
    } finally {
      // The builder removes it once read; this covers a builder that stopped first.
      void rm(bodyPath, { force: true }).catch(() => undefined);
    }
  }

  async #start(): Promise<Builder> {
    if (this.#worker) return this.#worker;
    const script = await workerScript('scenarios/build-worker.js', 'scenarios/build-worker.ts');
    if (this.#worker) return this.#worker;
    if (this.#closed) throw new Error('mockyard is closing');
    const worker: Builder = { process: forkWorker(script), folders: new Map() };
    worker.process.on('message', (outcome: BuildOutcome) => this.#settle(worker, outcome));
    worker.process.on('error', (err) => this.#fail(worker, err));
    worker.process.on('exit', () => {
      this.#fail(worker, new Error('the scenario builder stopped'));
      // Killed or lost in the middle of builds: nothing writes in their folders any more.
      for (const dir of worker.folders.values()) removeFolder(dir);
      worker.folders.clear();
    });
    this.#worker = worker;
    return worker;
  }

  #settle(worker: Builder, outcome: BuildOutcome): void {
    const dir = worker.folders.get(outcome.id);
    worker.folders.delete(outcome.id);
    // A refused body may not have reached the build (the JSON did not parse): its folder is still there.
    if (dir && !('built' in outcome)) removeFolder(dir);
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

  /** A build ran past the limit: it is refused, and its process (the only way to stop it) killed. */
  #overrun(worker: Builder, id: number): void {
    const waiting = this.#pending.get(id);
    if (!waiting) return;
    this.#pending.delete(id);
    const seconds = this.limitMs / 1000;
    waiting.reject(
      new ScenarioError(
        null,
        `building the scenario took longer than ${seconds} s and was stopped; send fewer datasets, records or files per scenario`,
        413,
      ),
    );
    if (this.#worker === worker) this.#stop();
  }

  #fail(worker: Builder, err: Error): void {
    if (this.#worker !== worker) return;
    this.#worker = undefined;
    const waiting = [...this.#pending.values()];
    this.#pending.clear();
    for (const w of waiting) w.reject(err);
  }

  #stop(): void {
    const worker = this.#worker;
    if (!worker) return;
    // Its builds still waiting are answered now, as its exit would answer them (#fail): that exit comes after
    // this builder has let go of it, and nothing else would settle them.
    this.#fail(worker, new Error('the scenario builder stopped'));
    // SIGKILL: a build's steps run synchronously and would not see a gentler signal's handler until they end.
    worker.process.kill('SIGKILL');
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#idle);
    const worker = this.#worker;
    this.#stop();
    // The server may exit before the builder's exit is heard: its builds' folders go now. The retries wait out
    // a file the killed builder might still create in the moment the signal takes.
    for (const dir of worker?.folders.values() ?? []) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    worker?.folders.clear();
  }
}
