// Lets one SQLite connection create tens of thousands of tables and indexes in time linear in their number.
import type Database from 'better-sqlite3';

/** A row of sqlite_schema: rowid, type, name, tbl_name, rootpage, sql. */
type SchemaRow = [number, string, string, string, number, string | null];

/**
 * How many objects may wait before they are set aside. Each CREATE costs in proportion to the objects the
 * connection holds, and each set-aside one reload of the schema that stays (the tables the loaders write into):
 * a few hundred keeps both small.
 */
const BATCH = 256;

/**
 * SQLite does work in proportion to the whole schema for each CREATE: it reads the new object back from
 * sqlite_schema with a full scan of that table (OP_ParseSchema), and the schema cookie's change walks every
 * table it knows (OP_SetCookie, sqlite3FkClearTriggerCache). A scenario makes about four objects per DKAN
 * column: 4,000 datasets of one small resource took 7.2 s to build without this (8,000 took 27 s), 1.4 s with it.
 *
 * So the objects made are set aside once complete (settle): their rows of sqlite_schema are kept here and
 * deleted from it (writable_schema), and the connection reads its schema anew without them; their pages stay
 * where they are. putBack() writes every row again with the rowid it had, so the file holds the same schema,
 * in the same order, as one built without this; only the page numbers differ.
 */
export class SchemaAside {
  readonly #db: Database.Database;
  /** Rows up to this rowid stay in sqlite_schema throughout (tables made before, written into later). */
  readonly #kept: number;
  readonly #rows: SchemaRow[] = [];
  /** How many rowids the rows set aside took: the next batch's rowids come after them. */
  #taken = 0;

  constructor(db: Database.Database) {
    this.#db = db;
    this.#kept = db.prepare('SELECT coalesce(max(rowid), 0) FROM sqlite_schema').pluck().get() as number;
  }

  /** Sets the objects made since the last call aside, once there are enough of them (outside transactions). */
  settle(): void {
    if (this.#newest() - this.#kept >= BATCH) this.#writable('RESET', () => this.#setAside());
  }

  /**
   * Puts every row back, with its rowid. The connection does not read its schema again (loading thousands of
   * FTS5 tables takes time that grows with their square: sqlite3MarkAllShadowTablesOf walks every table for
   * each), so this is the last use of the connection before the database is written out (serialize()).
   */
  putBack(): void {
    if (this.#rows.length === 0) return;
    this.#writable('OFF', () => {
      this.#setAside();
      const insert = this.#db.prepare(
        'INSERT INTO sqlite_schema (rowid, type, name, tbl_name, rootpage, sql) VALUES (?, ?, ?, ?, ?, ?)',
      );
      this.#db.transaction(() => {
        for (const row of this.#rows) insert.run(row);
      })();
    });
    this.#rows.length = 0;
  }

  #newest(): number {
    return this.#db.prepare('SELECT coalesce(max(rowid), 0) FROM sqlite_schema').pluck().get() as number;
  }

  /** Moves the rows past #kept here, renumbered as if the rows before them had stayed. */
  #setAside(): void {
    const rows = this.#db
      .prepare('SELECT rowid, type, name, tbl_name, rootpage, sql FROM sqlite_schema WHERE rowid > ? ORDER BY rowid')
      .raw()
      .all(this.#kept) as SchemaRow[];
    if (rows.length === 0) return;
    for (const row of rows) this.#rows.push([row[0] + this.#taken, row[1], row[2], row[3], row[4], row[5]]);
    this.#taken += rows.at(-1)![0] - this.#kept;
    this.#db.prepare('DELETE FROM sqlite_schema WHERE rowid > ?').run(this.#kept);
  }

  /** Runs `edit` with sqlite_schema writable; `then` RESET also makes the connection read its schema anew. */
  #writable(then: 'RESET' | 'OFF', edit: () => void): void {
    if (this.#db.inTransaction) throw new Error('the schema cannot be set aside inside a transaction');
    // better-sqlite3 opens connections with SQLITE_DBCONFIG_DEFENSIVE, which keeps sqlite_schema read-only.
    this.#db.unsafeMode(true);
    try {
      this.#db.pragma('writable_schema = ON');
      edit();
    } finally {
      this.#db.pragma(`writable_schema = ${then}`);
      this.#db.unsafeMode(false);
    }
  }
}
