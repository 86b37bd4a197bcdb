import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from '../../fixtures/lib/sqlite.js';
import { Faker, base, en } from '@faker-js/faker';
import { afterAll, describe, expect, it } from 'vitest';
import { archiveFixtures } from '../../fixtures/archive/build.js';
import { REFERENCE_DATE } from '../../fixtures/build.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function build(seed: number) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'archive-fixtures-'));
  dirs.push(dir);
  const db = new Database(':memory:');
  const faker = new Faker({ locale: [en, base] });
  faker.seed(seed);
  faker.setDefaultRefDate(REFERENCE_DATE);
  archiveFixtures.build({
    db,
    seed,
    scale: 1,
    refDate: REFERENCE_DATE,
    filesDir: dir,
    sourceDir: dir,
    faker,
    dkanCsvDir: null,
    log: () => {},
    background: () => {},
  });
  const items = db.prepare('SELECT identifier, record FROM archive_items ORDER BY position').all() as {
    identifier: string;
    record: string;
  }[];
  const files = db.prepare('SELECT identifier, name FROM archive_files ORDER BY identifier, position').all() as {
    identifier: string;
    name: string;
  }[];
  const bytes = files.map((f) => readFileSync(path.join(dir, f.identifier, f.name)).toString('base64'));
  db.close();
  return { items, bytes };
}

describe('archive fixture build', () => {
  it('gives byte-identical records and files for the same seed, and different ones for another seed', () => {
    const a = build(42);
    const b = build(42);
    const c = build(43);
    expect(b.items).toEqual(a.items);
    expect(b.bytes).toEqual(a.bytes);
    expect(c.items).not.toEqual(a.items);
  });
});
