// Regular expressions and JSONPath matchers over large bodies run on a thread of their own: even RE2's linear
// time is tens to hundreds of milliseconds for a MiB (most of it re2-wasm copying the text into WebAssembly),
// a JSONPath `..` over a MiB as long, and the event loop must stay free for other clients (health answers
// within 100 ms).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { scriptFileSync } from '../platform/worker-script.js';
import { THREAD_WORK } from './json-path-work.js';

/** RE2 as SafeRegex compiles it: Java's DOTALL full match, as WireMock's RegexPattern. */
export const fullMatch = (source: string): [string, string] => [`^(?:${source})$`, 'su'];

/**
 * The thread's script: regex-worker.js beside the bundle's chunks or tsc's output, or, run from the TypeScript
 * sources (tests), regex-worker.ts compiled once per process.
 */
function workerScriptFile(): string {
  const dir = path.dirname(fileURLToPath(import.meta.url));
  return scriptFileSync('regex-worker', [path.join(dir, 'regex-worker.js')], path.join(dir, 'regex-worker.ts'));
}

interface Pending {
  resolve: (hit: boolean) => void;
  reject: (err: Error) => void;
  /** Sends again with the text, when the thread no longer held it (more bodies at once than it keeps). */
  again: () => void;
}

/** What the thread matches a text against: a regular expression's source, or a matchesJsonPath matcher. */
type Matcher = { source: string } | { jsonPath: unknown };

/** Texts the thread holds at most (each sent once for all the patterns its body meets); the thread keeps the same. */
const KEEP = 8;

interface Running {
  worker: Worker;
  pending: Map<number, Pending>;
}

/**
 * The thread, started on first use and unreferenced while idle; its owner (the stubs, src/stubs/world.ts)
 * holds one for all its requests.
 */
export class RegexThread {
  #thread: Running | undefined;
  #nextId = 0;
  /** Texts the thread holds, oldest first. */
  #sent: { text: string; key: number }[] = [];

  /** Whether `text` fully matches `source` (already checked by SafeRegex), computed off the event loop. */
  readonly test = (source: string, text: string): Promise<boolean> =>
    new Promise((resolve, reject) => this.#post({ source }, text, false, resolve, reject));

  /** Whether the JSON `text` matches a matchesJsonPath matcher (its mapping's value), computed off the event loop. */
  readonly jsonPath = (source: unknown, text: string): Promise<boolean> =>
    new Promise((resolve, reject) => this.#post({ jsonPath: source }, text, false, resolve, reject));

  #start(): Running {
    // A JSONPath may work longer there than on the event loop (json-path-work.ts).
    const worker = new Worker(workerScriptFile(), { workerData: { keep: KEEP, jsonPathWork: THREAD_WORK } });
    const pending = new Map<number, Pending>();
    const self = { worker, pending };
    worker.on('message', ({ id, hit, lost }: { id: number; hit: boolean; lost?: boolean }) => {
      const p = pending.get(id);
      pending.delete(id);
      if (pending.size === 0) worker.unref();
      if (lost) p?.again();
      else p?.resolve(hit);
    });
    const fail = (err: Error) => {
      if (this.#thread === self) this.#thread = undefined;
      this.#sent = [];
      for (const p of pending.values()) p.reject(err);
      pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', () => fail(new Error('the regular expression thread stopped')));
    worker.unref();
    return self;
  }

  #post(what: Matcher, text: string, withText: boolean, resolve: Pending['resolve'], reject: Pending['reject']) {
    const thread = (this.#thread ??= this.#start());
    const { worker, pending } = thread;
    const id = this.#nextId++;
    // Held while a body waits for its answer; an idle thread does not keep the process alive.
    if (pending.size === 0) worker.ref();
    pending.set(id, { resolve, reject, again: () => this.#post(what, text, true, resolve, reject) });
    // Messages arrive in order: a text sent once serves every later pattern while the thread keeps it.
    const held = withText ? undefined : this.#sent.find((t) => t.text === text);
    if (held) worker.postMessage({ id, ...what, key: held.key });
    else {
      this.#sent.push({ text, key: id });
      if (this.#sent.length > KEEP) this.#sent.shift();
      worker.postMessage({ id, ...what, key: id, text });
    }
  }
}
