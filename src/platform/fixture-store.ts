// The read-only fixture database, shared by all areas; swappable in watch mode.
import path from 'node:path';
import Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import { DB_FILE } from '../../fixtures/fingerprint.js';

type Listener = () => void;

export class FixtureStore {
  #db: Database.Database;
  // Bounded: DKAN's SQL text varies with the shape of a query (list lengths, columns, sorts).
  #statements = new LRUCache<string, Database.Statement>({ max: 1000 });
  #listeners = new Set<Listener>();
  #filesDir: string;
  #fingerprint: string;
  #generation = 0;

  private constructor(
    readonly dataDir: string,
    db: Database.Database,
  ) {
    this.#db = db;
    [this.#filesDir, this.#fingerprint] = FixtureStore.#readMeta(dataDir, db);
  }

  static open(dataDir: string): FixtureStore {
    return new FixtureStore(dataDir, FixtureStore.#openDb(dataDir));
  }

  static #openDb(dataDir: string): Database.Database {
    const db = new Database(path.join(dataDir, DB_FILE), { readonly: true, fileMustExist: true });
    // Reads go through a memory map: a page the OS already caches costs no system call, which keeps a
    // paged query on 1,000,000 rows close to one on 10,000. Mapped pages are the OS's file cache, shared
    // and reclaimable, but they do show in the process's resident size (RssFile).
    db.pragma('mmap_size = 1073741824');
    db.pragma('cache_size = -8192');
    return db;
  }

  static #readMeta(dataDir: string, db: Database.Database): [string, string] {
    const rows = db.prepare('SELECT key, value FROM mockyard_meta').all() as { key: string; value: string }[];
    const meta = new Map(rows.map((r) => [r.key, r.value]));
    return [path.join(dataDir, meta.get('files_dir') ?? 'files'), meta.get('fingerprint') ?? ''];
  }

  get db(): Database.Database {
    return this.#db;
  }

  /** Folder with the generated files of this fixture generation (per area: <filesDir>/<area>). */
  get filesDir(): string {
    return this.#filesDir;
  }

  get fingerprint(): string {
    return this.#fingerprint;
  }

  /** Increases on every swap; caches keyed by it forget answers from older data. */
  get generation(): number {
    return this.#generation;
  }

  /** A statement prepared once per generation of the database. */
  prepare(sql: string): Database.Statement {
    let stmt = this.#statements.get(sql);
    if (!stmt) {
      stmt = this.#db.prepare(sql);
      this.#statements.set(sql, stmt);
    }
    return stmt;
  }

  /** Called after each swap, so areas drop what they derived from the old data. */
  onSwap(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Opens the (rebuilt) database and makes it current. Requests already running keep the
   * statements they hold; better-sqlite3 is synchronous, so none is mid-query at this point.
   */
  swap(): void {
    const next = FixtureStore.#openDb(this.dataDir);
    const old = this.#db;
    this.#db = next;
    [this.#filesDir, this.#fingerprint] = FixtureStore.#readMeta(this.dataDir, next);
    this.#statements.clear();
    this.#generation += 1;
    for (const listener of this.#listeners) listener();
    old.close();
  }

  close(): void {
    if (this.#db.open) this.#db.close();
  }
}
