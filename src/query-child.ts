// A query process of the executor (platform/data/query-pool.ts): one job at a time, on read-only connections
// to fixture and scenario database files. The parent SIGKILLs it when a job runs over its budget.
import { MAX_MMAP_BYTES } from '../fixtures/lib/sqlite.js';
import { FixtureStore, openReadOnly } from './platform/data/fixture-store.js';
// Each reply carries the CPU time used so far, on the clock the parent reads a slow job's process by.
import { ownCpuMs } from './platform/data/process-cpu.js';
import { AnswerArena, type TakeBytes } from './platform/data/answer-arena.js';
import type { JobAnswer, JobMessage } from './platform/data/query-job.js';
import { SLICE_BYTES, TASKS } from './query-tasks.js';

// CPU priority is the parent's business: a job that turns slow has its process lowered (query-pool.ts).

/** Stores a process keeps open at most. */
const MAX_OPEN = 4;

/** The stores a process has open, by file: it serves a few (the generated data and scenarios), most recent last. */
class OpenStores {
  readonly #open = new Map<string, FixtureStore>();

  constructor(readonly max: number) {}

  get(path: string, fingerprint: string): FixtureStore | null {
    const open = this.#open;
    const known = open.get(path);
    if (known && known.fingerprint === fingerprint) {
      open.delete(path);
      open.set(path, known);
      return known;
    }
    known?.close();
    open.delete(path);
    const store = openStore(path, fingerprint);
    if (!store) return null;
    open.set(path, store);
    for (const [p, s] of open) {
      if (open.size <= this.max) break;
      s.close();
      open.delete(p);
    }
    return store;
  }

  forget(path: string): void {
    this.#open.get(path)?.close();
    this.#open.delete(path);
  }
}

/** A read-only connection to the database at `path`, or null when the file there is another generation. */
function openStore(path: string, fingerprint: string): FixtureStore | null {
  const db = openReadOnly(path);
  // Pages are read through a memory map of the file (sqlite.org/mmap.html): a page is used where the OS
  // already caches it, instead of a pread() copying it into each process's own page cache. The processes share
  // those pages, and a page read costs no system call: over the DKAN query mix, 0.8 ms of a process's CPU per
  // query instead of 1.1 ms (docs/performance.md). SQLite caps the map at 2 GiB here (SQLITE_MAX_MMAP_SIZE);
  // its own cache then holds only what the map cannot serve.
  db.pragma(`mmap_size = ${MAX_MMAP_BYTES}`);
  db.pragma('cache_size = -2048');
  const found = db.prepare("SELECT value FROM mockyard_meta WHERE key = 'fingerprint'").pluck().get();
  // The file at this path is another generation already (a rebuild renamed a new one over it).
  if (found !== fingerprint) {
    db.close();
    return null;
  }
  return new FixtureStore({ db, filesDir: '', fingerprint, dbPath: path });
}

/**
 * A batch's answers go to the server in messages of FLUSH_ANSWERS, or of fewer once FLUSH_MS has passed
 * since the last one: the server is woken once per message, not per job, and an answer waits behind at most
 * one other job (which may be a long one). All of a batch's answers in one message (or every 2 ms) was a few
 * percent faster, but an answer then waited behind any long job later in its batch: the DKAN mix's p99 was
 * 21-22 ms in three bench runs, against 15.6 ms two to a message (docs/queries.md).
 */
const FLUSH_ANSWERS = 2;
const FLUSH_MS = 2;

/** What the process keeps between messages. */
interface Served {
  stores: OpenStores;
  /** Jobs of batches not started yet, and the batch each is in (runBatch). */
  waiting: Map<number, JobMessage[]>;
  /** Where answers' bytes are written; reset once none is waiting to be sent (`unsent`). */
  arena: AnswerArena;
  /** Answers run and not sent yet, in all batches. */
  unsent: number;
}

function handle(served: Served, job: JobMessage): JobAnswer {
  try {
    const store = served.stores.get(job.path, job.fingerprint);
    if (!store) return { id: job.id, stale: true, cpuMs: ownCpuMs() };
    const task = TASKS[job.task] as (store: FixtureStore, input: unknown, bytes: TakeBytes) => unknown;
    const result = task(store, job.input, served.arena.take);
    return { id: job.id, result, cpuMs: ownCpuMs() };
  } catch (err) {
    const e = err as { message?: string; code?: string };
    return { id: job.id, error: { message: String(e?.message ?? err), code: e?.code }, cpuMs: ownCpuMs() };
  }
}

type Message =
  | JobMessage
  | { jobs: JobMessage[] }
  | { skip: number[] }
  | { forget: string }
  | { warm: [path: string, fingerprint: string][] };

/**
 * Runs a batch's jobs in order, one per turn of the event loop, so that a `skip` the server sends meanwhile
 * (it took a job back to run elsewhere) is read before that job would start. A job taken back can come again
 * in a newer batch while this one still steps through the jobs it lost: the newer batch runs it, in its place,
 * since the server reads a batch's answers in the batch's order. Answers go in messages of
 * FLUSH_ANSWERS (see there); bytes long enough to go in slices go on their own, after those before them.
 */
function runBatch(served: Served, jobs: JobMessage[]): void {
  const { waiting } = served;
  for (const job of jobs) waiting.set(job.id, jobs);
  const pending: JobAnswer[] = [];
  let since = performance.now();
  const flush = () => {
    if (pending.length > 0) {
      served.unsent -= pending.length;
      reply({ answers: pending.splice(0), cpuMs: ownCpuMs() });
      sent(served);
    }
    since = performance.now();
  };
  const step = (i: number) => {
    const job = jobs[i]!;
    // Only the batch that has the job now runs it: one the server took back may come again in a newer batch.
    if (waiting.get(job.id) === jobs) {
      waiting.delete(job.id);
      const done = handle(served, job);
      if (done.result instanceof Uint8Array && done.result.byteLength > SLICE_BYTES) {
        flush();
        answer(done);
        sent(served);
      } else {
        pending.push(done);
        served.unsent++;
      }
    }
    const last = i === jobs.length - 1;
    if (last || pending.length >= FLUSH_ANSWERS || performance.now() - since >= FLUSH_MS) flush();
    if (!last) setImmediate(step, i + 1);
  };
  step(0);
}

/** An answer has gone: its bytes are the arena's again once no other answer is waiting to go. */
function sent(served: Served): void {
  if (served.unsent === 0) served.arena.reset();
}

/** Answers the server's messages, one at a time, on the stores this process opens. */
function serve(): void {
  // The server may take waiting jobs back (a skip) to run elsewhere or to send again in a new batch (runBatch).
  const served: Served = { stores: new OpenStores(MAX_OPEN), waiting: new Map(), arena: new AnswerArena(), unsent: 0 };
  const { stores, waiting } = served;
  process.on('message', (msg: Message) => {
    if ('jobs' in msg) {
      runBatch(served, msg.jobs);
      return;
    }
    if ('skip' in msg) {
      for (const id of msg.skip) waiting.delete(id);
      return;
    }
    if ('warm' in msg) {
      for (const [path, fingerprint] of msg.warm) {
        try {
          stores.get(path, fingerprint);
        } catch {
          // Gone or replaced meanwhile: the first job that names it says so.
        }
      }
      reply({ idle: true, cpuMs: ownCpuMs() });
      return;
    }
    if ('forget' in msg) {
      stores.forget(msg.forget);
      return;
    }
    answer(handle(served, msg));
    sent(served);
  });
}

/**
 * Sends a job's answer. Bytes longer than SLICE_BYTES go as slices, a message each, then the answer without
 * them: the server reads and copies one message whole on its event loop, so a 56 MB AGCO page sent at once
 * held every other client for tens of milliseconds, and in slices for a slice's worth at a time.
 */
function answer(message: JobAnswer): void {
  const { result } = message;
  if (!(result instanceof Uint8Array) || result.byteLength <= SLICE_BYTES) {
    reply(message);
    return;
  }
  for (let at = 0; at < result.byteLength; at += SLICE_BYTES)
    reply({ id: message.id, slice: result.subarray(at, at + SLICE_BYTES) });
  reply({ id: message.id, sliced: true, cpuMs: ownCpuMs() });
}

/** The server is gone (its end of the channel closed, EPIPE): nothing is left to answer. */
const serverGone = (err: Error | null) => {
  if (err) process.exit(0);
};

/**
 * Sends to the server. A server killed outright (SIGKILL, a crash) can be gone before this process hears
 * of it; without a callback, the failed write would be an unhandled 'error' and a stack trace on the
 * terminal the two share.
 */
function reply(message: unknown): void {
  if (!process.connected) process.exit(0);
  process.send!(message, undefined, undefined, serverGone);
}

process.on('disconnect', () => process.exit(0));
serve();
reply({ ready: true, cpuMs: ownCpuMs() });
