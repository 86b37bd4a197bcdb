// One generation of fixture data: a read-only SQLite database, its generated files, and everything derived from them.
import path from 'node:path';
import Database from '../../../fixtures/lib/sqlite.js';
import { LRUCache } from 'lru-cache';
import { DB_FILE } from '../../../fixtures/fingerprint.js';

/**
 * A read-only connection to a database file that nobody writes once it is in place: a build writes a new
 * file and renames it over the old one, and a scenario writes its file once, before it is opened. With
 * EXCLUSIVE locking (sqlite.org/pragma.html#pragma_locking_mode) the connection takes its shared lock on
 * the first read and keeps it, instead of taking the lock, checking for a hot journal and releasing the lock
 * around every statement: about 12 µs of system calls per statement on this machine (177 one-row lookups:
 * 2.5 ms -> 0.3 ms). Other readers still read; a writer of this very file would wait, and there is none.
 */
export function openReadOnly(dbPath: string): Database.Database {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  db.pragma('locking_mode = EXCLUSIVE');
  return db;
}

export interface StoreSource {
  db: Database.Database;
  /** Folder with the generated files of this generation (per area: <filesDir>/<area>). */
  filesDir: string;
  fingerprint: string;
  /** Increases with every generation a running mockyard swaps in. */
  generation?: number;
  /** The database file, when there is one (query workers open it too); none for an in-memory store. */
  dbPath?: string | null;
}

/**
 * Areas read fixture data only through a store, and keep what they derive from it (parsed catalogs,
 * rendered answers, counts) in the store's `memo`/`lru`, never in module state. A rebuilt database or
 * a scenario is just another store, so its caches live and die with it.
 */
export class FixtureStore {
  readonly db: Database.Database;
  readonly filesDir: string;
  readonly fingerprint: string;
  readonly generation: number;
  readonly dbPath: string | null;
  // Bounded: DKAN's SQL text varies with the shape of a query (list lengths, columns, sorts).
  #statements = new LRUCache<string, Database.Statement>({ max: 1000 });
  #derived = new Map<string, unknown>();
  #users = 0;
  #retired: (() => void) | null = null;
  #closeListeners: (() => void)[] = [];

  constructor(source: StoreSource) {
    this.db = source.db;
    this.filesDir = source.filesDir;
    this.fingerprint = source.fingerprint;
    this.generation = source.generation ?? 0;
    this.dbPath = source.dbPath ?? null;
  }

  /** Opens the fixture database that `npm run fixtures` wrote into dataDir, read-only. */
  static open(dataDir: string, generation = 0): FixtureStore {
    const dbPath = path.join(dataDir, DB_FILE);
    const db = openReadOnly(dbPath);
    // No memory map: mapped pages would count in the server's resident size while the OS caches the file
    // just as well without. DKAN and AGCO queries run in the query processes (their own connections), so
    // this one serves lookups of a few rows, and 2 MB of SQLite's page cache holds their hot pages.
    db.pragma('cache_size = -2048');
    const rows = db.prepare('SELECT key, value FROM mockyard_meta').all() as { key: string; value: string }[];
    const meta = new Map(rows.map((r) => [r.key, r.value]));
    return new FixtureStore({
      db,
      filesDir: path.join(dataDir, meta.get('files_dir') ?? 'files'),
      fingerprint: meta.get('fingerprint') ?? '',
      generation,
      dbPath,
    });
  }

  /** A statement prepared once per store. */
  prepare(sql: string): Database.Statement {
    let stmt = this.#statements.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.#statements.set(sql, stmt);
    }
    return stmt;
  }

  /** A value computed once from this store's data and kept as long as the store lives. */
  memo<T>(name: string, compute: (store: FixtureStore) => T): T {
    if (this.#derived.has(name)) return this.#derived.get(name) as T;
    const value = compute(this);
    this.#derived.set(name, value);
    return value;
  }

  /** A bounded cache of this store's answers, created on first use (its options are read only then). */
  lru<V extends NonNullable<unknown>>(
    name: string,
    options: () => LRUCache.Options<string, V, unknown>,
  ): LRUCache<string, V> {
    return this.memo(`lru:${name}`, () => new LRUCache<string, V>(options()));
  }

  /** Marks the store as in use by a request; call the returned function when the request is done. */
  acquire(): () => void {
    this.#users += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#users -= 1;
      if (this.#users === 0 && this.#retired) this.#finish();
    };
  }

  /**
   * No new request will get this store: close it, and then call `cleanup` (e.g. to delete its files),
   * once the last request that holds it is done.
   */
  retire(cleanup: () => void = () => {}): void {
    this.#retired = cleanup;
    if (this.#users === 0) this.#finish();
  }

  #finish(): void {
    const cleanup = this.#retired;
    this.#retired = null;
    this.#derived.clear();
    this.#statements.clear();
    this.close();
    cleanup?.();
  }

  /** Runs `listener` once the store is closed (the query executor then drops its connections to the file). */
  onClose(listener: () => void): void {
    if (!this.db.open) listener();
    else this.#closeListeners.push(listener);
  }

  close(): void {
    if (this.db.open) this.db.close();
    for (const listener of this.#closeListeners.splice(0)) listener();
  }
}
