// The LIKE texts stored at build time (fixtures/dkan/like-texts.ts) must be exactly what a query process
// computed from the dictionaries before they were stored, and a database without them must still answer.
import { describe, expect, it } from 'vitest';
import Database from '../../fixtures/lib/sqlite.js';
import { DKAN_TABLES_SQL } from '../../fixtures/dkan/layout.js';
import { DkanWriter } from '../../fixtures/dkan/writer.js';
import { catalogOf, type Resource } from '../../src/areas/dkan/datasets.js';
import { likeTexts, markLike } from '../../src/areas/dkan/like-match.js';
import { rankedResource } from '../../src/areas/dkan/ranked.js';
import { patternOperand } from '../../src/areas/dkan/sql.js';
import { FixtureStore } from '../../src/platform/data/fixture-store.js';
import { testApp } from '../helpers/app.js';

/** The texts as ranked.ts computed them from a column's dictionary, spelled out here on purpose. */
function computed(store: FixtureStore, r: Resource, position: number, distinct: number) {
  const column = r.columns[position]!;
  const dict = `${r.table}_d${position}`;
  const operand = patternOperand(`${dict}.${column.ident}`, column);
  const joined = store.db
    .prepare(`SELECT group_concat(o, char(10)) FROM (SELECT COALESCE(${operand}, '') AS o FROM ${dict} ORDER BY rank)`)
    .pluck()
    .get() as string | null;
  const nulls = operand.startsWith(`${dict}.`)
    ? (store.db.prepare(`SELECT rank FROM ${dict} WHERE ${operand} IS NULL`).pluck().all() as number[])
    : [];
  return likeTexts(joined ?? '', distinct, nulls);
}

describe('LIKE texts stored with the ranks', () => {
  it('equal, for every column of every resource, the texts computed from its dictionary', async () => {
    const { store } = await testApp();
    const stored = store.db.prepare(
      'SELECT distinct_values AS n, text FROM dkan_ranks JOIN dkan_like_texts USING (distribution_id, name) WHERE distribution_id = ? AND name = ?',
    );
    let checked = 0;
    for (const r of catalogOf(store).datasets.flatMap((d) => d.resources)) {
      const ranked = rankedResource(store, r)!;
      r.columns.forEach((c, position) => {
        const row = stored.get(r.distributionId, c.name) as { n: number; text: string | null } | undefined;
        expect(row, `${r.title}: ${c.name} stored`).toBeDefined();
        const want = computed(store, r, position, row!.n);
        expect(row!.text, `${r.title}: ${c.name}`).toBe(want?.text ?? null);
        expect(ranked.columns.get(c.name)!.like, `${r.title}: ${c.name}`).toEqual(want);
        checked++;
      });
    }
    expect(checked).toBeGreaterThan(10);
  });

  it('are computed as before when the database does not hold them, and unusable ones are kept as unusable', () => {
    const db = new Database(':memory:');
    db.exec(DKAN_TABLES_SQL);
    const values: unknown[][] = [
      [1.5, '2024-03-09', 'Alpha'],
      [null, null, null],
      [22.125, '2023-12-31', 'beta Γ'],
      [1.5, '2024-03-09', 'ALPHA'],
      [0.004, '1999-01-02', ''],
    ];
    new DkanWriter(db).write({
      id: 'like-texts',
      title: 'LIKE texts',
      resources: [
        {
          title: 'rows',
          key: 'like-texts-rows',
          columns: [
            { name: 'price', type: 'decimal', description: 'Price', decimals: 2 },
            { name: 'day', type: 'date', description: 'Day', dateFormat: 'mdy' },
            { name: 'label', type: 'text', description: 'Label' },
          ],
          fill: (insert) => values.forEach((v) => insert(v)),
        },
        {
          title: 'broken',
          key: 'like-texts-broken',
          columns: [{ name: 'note', type: 'text', description: 'Note' }],
          fill: (insert) => ['a\r\nb', 'c'].forEach((v) => insert([v])),
        },
      ],
    });
    const likes = () => {
      const store = new FixtureStore({ db, filesDir: '/nonexistent', fingerprint: `t${Math.random()}` });
      return catalogOf(store).datasets.flatMap((d) =>
        d.resources.flatMap((r) => r.columns.map((c) => rankedResource(store, r)!.columns.get(c.name)!.like)),
      );
    };
    const fromStore = likes();
    expect(fromStore[3], 'a value with a line break').toBeNull();
    const price = fromStore[0]!;
    const member = new Uint8Array(price.distinct + 1);
    expect(markLike(price, '%.50', member)).toBe(true);
    expect([...member]).toEqual([0, 0, 0, 1, 0]);
    db.exec('DELETE FROM dkan_like_texts');
    expect(likes()).toEqual(fromStore);
    db.exec('DROP TABLE dkan_like_texts');
    expect(likes()).toEqual(fromStore);
    db.close();
  });
});
