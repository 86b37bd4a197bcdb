// The row cache gives a page of whole rows byte for byte as the table's stored JSON joined by SQL, whether
// its rows were cached, read now, or past its bound.
import { describe, expect, it, vi } from 'vitest';
import { ROW_JSON_COLUMN } from '../../fixtures/dkan/layout.js';
import { mulberry32 } from '../../fixtures/lib/prng.js';
import { catalogOf } from '../../src/areas/dkan/datasets.js';
import { RowCache } from '../../src/areas/dkan/row-cache.js';
import { testApp } from '../helpers/app.js';

const { store } = await testApp();
const resources = catalogOf(store).datasets.flatMap((d) => d.resources);
const random = mulberry32(25);

/** What the SQL page path gives for these record numbers: json_each in order, a join, group_concat. */
function sqlPage(table: string, rows: readonly number[]): Buffer {
  const sql = `SELECT CAST('[' || COALESCE(group_concat(t.${ROW_JSON_COLUMN}, ','), '') || ']' AS BLOB) FROM json_each(?) AS p CROSS JOIN ${table} AS t ON t.record_number = p.value`;
  return store.prepare(sql).pluck().get(JSON.stringify(rows)) as Buffer;
}

/** A page as the rank path makes one: record numbers in any order, some twice; here also some the table lacks. */
function somePage(rowCount: number): number[] {
  const length = Math.floor(random() * 60);
  return Array.from({ length }, () => {
    const r = random();
    if (r < 0.03) return rowCount + 1 + Math.floor(random() * 5);
    if (r < 0.05) return 0;
    return 1 + Math.floor(random() * rowCount);
  });
}

describe('the row cache', () => {
  it('gives every page exactly the bytes of the SQL join, read now or cached', () => {
    const cache = new RowCache(store);
    for (let i = 0; i < 200; i++) {
      const r = resources[i % resources.length]!;
      const rows = somePage(Math.min(r.rows, 400));
      expect(cache.page(r, rows).equals(sqlPage(r.table, rows)), `${r.table} ${rows.join(',')}`).toBe(true);
    }
    expect(cache.page(resources[0]!, []).toString()).toBe('[]');
  });

  it('reads a row from SQLite once while it has room', () => {
    const cache = new RowCache(store);
    const r = resources[0]!;
    const rows = [5, 3, 9, 3, 1];
    const reversed = sqlPage(r.table, [...rows].reverse());
    const prepare = vi.spyOn(store, 'prepare');
    const reads = () => prepare.mock.calls.filter(([sql]) => sql.includes('record_number IN')).length;
    try {
      const first = cache.page(r, rows);
      expect(reads()).toBe(1);
      expect(cache.page(r, [...rows].reverse()).equals(reversed)).toBe(true);
      expect(cache.page(r, rows).equals(first)).toBe(true);
      expect(reads()).toBe(1);
      // Only the row not seen before is read.
      cache.page(r, [3, 2]);
      expect(reads()).toBe(2);
    } finally {
      prepare.mockRestore();
    }
  });

  it('stops growing at its bound and still answers every page exactly', () => {
    const r = resources.find((x) => x.rows >= 1000)!;
    const rowBytes = sqlPage(r.table, [1]).length;
    // Room for a few rows: the rest are read each time.
    const cache = new RowCache(store, rowBytes * 4);
    for (let i = 0; i < 50; i++) {
      const rows = somePage(1000);
      expect(cache.page(r, rows).equals(sqlPage(r.table, rows))).toBe(true);
      expect(cache.heldBytes).toBeLessThanOrEqual(rowBytes * 4);
    }
    expect(cache.heldBytes).toBeGreaterThan(0);
  });
});
