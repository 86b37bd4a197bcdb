// Regular expressions over large bodies run on a thread of their own: even RE2's linear time is tens to
// hundreds of milliseconds for a MiB (most of it re2-wasm copying the text into WebAssembly), and the
// event loop must stay free for other clients (health answers within 100 ms).
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** RE2 as SafeRegex compiles it: Java's DOTALL full match, as WireMock's RegexPattern. */
export const fullMatch = (source: string): [string, string] => [`^(?:${source})$`, 'su'];

// CommonJS evaluated as is (no file to find in the bundle or from the sources); re2-wasm's path comes in workerData.
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const { RE2 } = require(workerData.re2);
const compiled = new Map();
const texts = new Map();
parentPort.on('message', ({ id, source, key, text }) => {
  if (text !== undefined) {
    texts.set(key, text);
    if (texts.size > workerData.keep) texts.delete(texts.keys().next().value);
  }
  if (!texts.has(key)) return parentPort.postMessage({ id, hit: false, lost: true });
  let re = compiled.get(source);
  if (!re) {
    if (compiled.size >= 512) compiled.clear();
    re = new RE2('^(?:' + source + ')$', 'su');
    compiled.set(source, re);
  }
  parentPort.postMessage({ id, hit: re.test(texts.get(key)) });
});
`;

interface Pending {
  resolve: (hit: boolean) => void;
  reject: (err: Error) => void;
  /** Sends again with the text, when the thread no longer held it (more bodies at once than it keeps). */
  again: () => void;
}

let thread: { worker: Worker; pending: Map<number, Pending> } | undefined;
let nextId = 0;
/** Texts the thread holds, oldest first (each sent once for all the patterns its body meets); the thread keeps the same. */
let sent: { text: string; key: number }[] = [];
const KEEP = 8;

function start(): NonNullable<typeof thread> {
  const re2 = createRequire(import.meta.url).resolve('re2-wasm');
  const worker = new Worker(THREAD, { eval: true, workerData: { re2, keep: KEEP } });
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
    if (thread === self) thread = undefined;
    sent = [];
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  worker.on('error', fail);
  worker.on('exit', () => fail(new Error('the regular expression thread stopped')));
  worker.unref();
  return self;
}

/** Whether `text` fully matches `source` (already checked by SafeRegex), computed off the event loop. */
export function testOffThread(source: string, text: string): Promise<boolean> {
  return new Promise((resolve, reject) => post(source, text, false, resolve, reject));
}

function post(source: string, text: string, withText: boolean, resolve: Pending['resolve'], reject: Pending['reject']) {
  thread ??= start();
  const { worker, pending } = thread;
  const id = nextId++;
  // Held while a body waits for its answer; an idle thread does not keep the process alive.
  if (pending.size === 0) worker.ref();
  pending.set(id, { resolve, reject, again: () => post(source, text, true, resolve, reject) });
  // Messages arrive in order: a text sent once serves every later pattern while the thread keeps it.
  const held = withText ? undefined : sent.find((t) => t.text === text);
  if (held) worker.postMessage({ id, source, key: held.key });
  else {
    sent.push({ text, key: id });
    if (sent.length > KEEP) sent.shift();
    worker.postMessage({ id, source, key: id, text });
  }
}
