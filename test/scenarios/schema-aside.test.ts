// SchemaAside: thousands of tables made on one connection leave the schema and rows that making them plainly leaves.
import { describe, expect, it } from 'vitest';
import Database from '../../fixtures/lib/sqlite.js';
import { SchemaAside } from '../../src/scenarios/schema-aside.js';

/** Makes `groups` groups of objects (a table, its index, an FTS5 table over it) with rows; `between` runs after each. */
function make(groups: number, between: (db: Database.Database) => void): Database.Database {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE catalog (name TEXT PRIMARY KEY, rows INTEGER NOT NULL)');
  const aside = new SchemaAside(db);
  const catalog = db.prepare('INSERT INTO catalog VALUES (?, ?)');
  for (let g = 0; g < groups; g++) {
    db.exec(`CREATE TABLE t${g} (id INTEGER PRIMARY KEY, label TEXT COLLATE NOCASE)`);
    db.prepare(`INSERT INTO t${g} (label) VALUES (?), (?)`).run(`label ${g}`, `other ${g}`);
    db.exec(`CREATE INDEX t${g}_label ON t${g} (label)`);
    db.exec(`CREATE VIRTUAL TABLE t${g}_fts USING fts5(label, content='', tokenize='trigram')`);
    db.exec(`INSERT INTO t${g}_fts (rowid, label) SELECT id, label FROM t${g}`);
    catalog.run(`t${g}`, 2);
    between(db);
    aside.settle();
  }
  aside.putBack();
  return db;
}

/** The schema's rows (all but rootpage, which only says where a table's pages begin) and every table's rows. */
function contents(bytes: Buffer) {
  const db = new Database(bytes, { readonly: true });
  try {
    const schema = db.prepare('SELECT rowid, type, name, tbl_name, sql FROM sqlite_schema ORDER BY rowid').raw().all();
    const tables = db
      .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND rootpage > 0 ORDER BY rowid")
      .pluck()
      .all() as string[];
    const rows = tables.map((t) => db.prepare(`SELECT * FROM "${t}"`).raw().all());
    return {
      schema,
      rows,
      integrity: db.pragma('integrity_check', { simple: true }),
      cookie: db.pragma('schema_version', { simple: true }),
      free: db.pragma('freelist_count', { simple: true }),
    };
  } finally {
    db.close();
  }
}

describe('SchemaAside', () => {
  it('keeps the connection small while it builds, and puts back the schema a plain build makes', () => {
    let most = 0;
    const known = (db: Database.Database) =>
      (most = Math.max(most, db.prepare('SELECT count(*) FROM pragma_table_list').pluck().get() as number));
    // 400 groups of 7 objects (the FTS5 table makes four tables of its own): several batches set aside.
    const aside = make(400, known);
    // The tables the connection knows (pragma_table_list) stay at about one batch's, not 400 groups' 2,400.
    expect(most).toBeLessThan(400);
    const plain = contents(make(400, () => undefined).serialize());
    const built = contents(aside.serialize());
    expect(built.integrity).toBe('ok');
    expect(built.schema.length).toBe(2 + 400 * 7);
    expect(built).toEqual(plain);
    // The tables are read back through a fresh connection, full-text index included.
    const reopened = new Database(aside.serialize(), { readonly: true });
    expect(reopened.prepare("SELECT rowid FROM t399_fts WHERE t399_fts MATCH 'other'").pluck().all()).toEqual([2]);
    reopened.close();
  });
});
