// A query worker thread (query-pool.ts): a read-only connection of its own, and the steps of each job run
// with the same code as the in-process path (sql-steps.ts).
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import Database from '../../../fixtures/lib/sqlite.js';
import { runStep, type Step } from './sql-steps.js';

interface Job {
  id: number;
  path: string;
  fingerprint: string;
  steps: readonly Step[];
}

interface Connection {
  path: string;
  fingerprint: string;
  db: BetterSqlite3.Database;
  stmts: Map<string, BetterSqlite3.Statement>;
}

// A lower CPU priority for this thread (on Linux a thread's own nice value): the event loop wins a shared core.
try {
  setPriority(10);
} catch {
  // Not permitted here: run at the normal priority.
}

let conn: Connection | null = null;

function connect(path: string, fingerprint: string): Connection | null {
  if (conn && conn.path === path && conn.fingerprint === fingerprint) return conn;
  conn?.db.close();
  conn = null;
  const db = new Database(path, { readonly: true, fileMustExist: true });
  // No memory map here: page faults of long scans in several threads contend with the event loop's own
  // memory mappings (the process's mmap lock) and stall it; plain reads into SQLite's cache do not.
  db.pragma('mmap_size = 0');
  db.pragma('cache_size = -16384');
  const found = db.prepare("SELECT value FROM mockyard_meta WHERE key = 'fingerprint'").pluck().get();
  // The file at this path is another generation already (a rebuild renamed a new one over it).
  if (found !== fingerprint) {
    db.close();
    return null;
  }
  conn = { path, fingerprint, db, stmts: new Map() };
  return conn;
}

function statement(c: Connection, sql: string): BetterSqlite3.Statement {
  let stmt = c.stmts.get(sql);
  if (!stmt) {
    if (c.stmts.size >= 1000) c.stmts.clear();
    stmt = c.db.prepare(sql);
    c.stmts.set(sql, stmt);
  }
  return stmt;
}

parentPort?.on('message', (job: Job) => {
  try {
    const c = connect(job.path, job.fingerprint);
    if (!c) return parentPort!.postMessage({ id: job.id, stale: true });
    const results = job.steps.map((s) => runStep(statement(c, s.sql), s.op, s.params));
    parentPort!.postMessage({ id: job.id, results });
  } catch (err) {
    const e = err as { message?: string; code?: string };
    parentPort!.postMessage({ id: job.id, error: { message: String(e?.message ?? err), code: e?.code } });
  }
});
