import Database from '../../fixtures/lib/sqlite.js';
import { Faker, base, en } from '@faker-js/faker';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { agcoFixtures } from '../../fixtures/agco/build.js';
import type { FixtureBuildContext } from '../../fixtures/types.js';
import { REFERENCE_DATE } from '../../fixtures/build.js';
import { testApp } from '../helpers/app.js';
import { STATES } from '../../src/areas/agco/schemas.js';

function buildInMemory(seed: number): { db: Database.Database } {
  const db = new Database(':memory:');
  const faker = new Faker({ locale: [en, base] });
  faker.seed(seed);
  faker.setDefaultRefDate(REFERENCE_DATE);
  const ctx: FixtureBuildContext = {
    db,
    seed,
    scale: 1,
    refDate: REFERENCE_DATE,
    filesDir: '/nonexistent',
    faker,
    dkanCsvDir: null,
    sourceDir: path.resolve('fixtures/agco'),
    log: () => {},
    background: () => {},
  };
  void agcoFixtures.build(ctx);
  return { db };
}

const dump = (db: Database.Database) =>
  JSON.stringify([
    db.prepare('SELECT * FROM agco_languages ORDER BY locale_id').all(),
    db.prepare('SELECT * FROM agco_definitions ORDER BY rowid').all(),
    db.prepare('SELECT * FROM agco_translations ORDER BY rowid').all(),
  ]);

describe('agco fixtures', async () => {
  const { store } = await testApp();
  const db = store.db;

  it('has languages with LocaleIds, descriptions, and some deleted ones', () => {
    const langs = db.prepare('SELECT locale_id, description, is_deleted FROM agco_languages').all() as {
      locale_id: number;
      description: string;
      is_deleted: number;
    }[];
    expect(langs.map((l) => l.locale_id)).toEqual(expect.arrayContaining([1033, 1031, 1036]));
    expect(langs.every((l) => Number.isInteger(l.locale_id) && l.description.length > 0)).toBe(true);
    const deleted = langs.filter((l) => l.is_deleted === 1).length;
    expect(deleted).toBeGreaterThan(0);
    expect(deleted).toBeLessThan(langs.length);
  });

  it('has thousands of definitions, each with an English original and translations in valid states', () => {
    const defs = db.prepare('SELECT count(*) FROM agco_definitions').pluck().get() as number;
    expect(defs).toBeGreaterThanOrEqual(2000);
    const withoutOriginal = db
      .prepare(
        "SELECT count(*) FROM agco_definitions d WHERE NOT EXISTS (SELECT 1 FROM agco_translations t WHERE t.def_rowid = d.rowid AND t.language_id = 1033 AND t.state = 'Original')",
      )
      .pluck()
      .get();
    expect(withoutOriginal).toBe(0);
    const states = db.prepare('SELECT DISTINCT state FROM agco_translations').pluck().all() as string[];
    for (const s of states) expect(STATES).toContain(s);
    const orphanLanguages = db
      .prepare('SELECT count(*) FROM agco_translations WHERE language_id NOT IN (SELECT locale_id FROM agco_languages)')
      .pluck()
      .get();
    expect(orphanLanguages).toBe(0);
    const deletedTranslations = db
      .prepare('SELECT count(*) FROM agco_translations WHERE lang_deleted = 1')
      .pluck()
      .get() as number;
    expect(deletedTranslations).toBeGreaterThan(0);
  });

  it('ParameterCount matches the {n} placeholders of the English text', () => {
    const rows = db
      .prepare(
        'SELECT d.parameter_count AS n, t.value FROM agco_definitions d JOIN agco_translations t ON t.def_rowid = d.rowid AND t.language_id = 1033',
      )
      .all() as { n: number; value: string }[];
    for (const r of rows) expect((r.value.match(/\{\d+\}/g) ?? []).length).toBe(r.n);
  });

  it('timestamps are unique across definitions and translations, and base64 of their 8-byte big-endian value', () => {
    const all = db
      .prepare('SELECT ts, ts_b64 FROM agco_definitions UNION ALL SELECT ts, ts_b64 FROM agco_translations')
      .all() as { ts: number; ts_b64: string }[];
    expect(new Set(all.map((r) => r.ts)).size).toBe(all.length);
    for (const r of all.slice(0, 2000)) {
      const buf = Buffer.from(r.ts_b64, 'base64');
      expect(buf.length).toBe(8);
      expect(buf.readBigUInt64BE(0)).toBe(BigInt(r.ts));
    }
  });

  it('full-text indexes cover every description and translation', () => {
    expect(db.prepare('SELECT count(*) FROM agco_definitions_fts').pluck().get()).toBe(
      db.prepare('SELECT count(*) FROM agco_definitions').pluck().get(),
    );
    expect(db.prepare('SELECT count(*) FROM agco_translations_fts').pluck().get()).toBe(
      db.prepare('SELECT count(*) FROM agco_translations').pluck().get(),
    );
  });

  it('is byte-identical for the same seed, different for another, ', () => {
    const a = buildInMemory(42);
    const b = buildInMemory(42);
    const c = buildInMemory(43);
    expect(dump(a.db)).toBe(dump(b.db));
    expect(dump(a.db)).not.toBe(dump(c.db));
  });
});
