// The rank path's inner scan against the plain filter it stands for: every direction, keep kind, skip and
// page end, over arrays of record_numbers and over record_number order itself.
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../fixtures/lib/prng.js';
import { scanKept, type KeptBytes } from '../../src/areas/dkan/kept-scan.js';

const random = mulberry32(26);
const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;

describe('scanKept', () => {
  it('passes `skip` kept rows and takes the next ones, as filtering the rows in order does', () => {
    const n = 400;
    const ranks = Uint32Array.from({ length: n + 1 }, () => 1 + Math.floor(random() * 9));
    const other = Uint32Array.from({ length: n + 1 }, () => 1 + Math.floor(random() * 4));
    for (let i = 0; i < 2000; i++) {
      const length = pick([0, 1, 7, n]);
      const shuffled = Uint32Array.from({ length: n }, (_, k) => k + 1).sort(() => random() - 0.5);
      const rows = pick([null, shuffled.subarray(0, length)]);
      const desc = random() < 0.5;
      const kind = pick(['all', 'rows', 'ranks'] as const);
      const kept: KeptBytes =
        kind === 'all'
          ? { keep: null, lookup: null }
          : kind === 'rows'
            ? { keep: Uint8Array.from({ length: n + 1 }, () => (random() < 0.4 ? 1 : 0)), lookup: null }
            : { keep: Uint8Array.from({ length: 10 }, () => (random() < 0.4 ? 1 : 0)), lookup: ranks };
      const only = random() < 0.3 ? { ranks: other, rank: 1 + Math.floor(random() * 4) } : null;
      const skip = pick([0, 1, 3, 50, 1000]);
      const before = pick([[], [7, 8]]);
      const end = before.length + pick([0, 1, 5, 100, Infinity]);

      const order = Array.from({ length }, (_, k) => (rows === null ? k + 1 : rows[k]!));
      if (desc) order.reverse();
      const isKept = (rn: number) =>
        (kept.keep === null || kept.keep[kept.lookup === null ? rn : kept.lookup[rn]!] === 1) &&
        (only === null || only.ranks[rn] === only.rank);
      const all = order.filter(isKept);
      const want = [...before, ...all.slice(skip, skip + end - before.length)];

      const out = [...before];
      const { passed, read } = scanKept(rows, length, desc, kept, skip, out, end, only);
      const label = JSON.stringify({ length, rows: rows !== null, desc, kind, only: only !== null, skip, end });
      expect(out, label).toEqual(want);
      expect(passed, label).toBe(Math.min(skip, all.length));
      // It reads no further than it needs: to the skip-th kept row when the page takes none, else to its last row.
      const needed = end === before.length ? skip : skip + end - before.length;
      const at = needed === 0 ? 0 : needed <= all.length ? order.indexOf(all[needed - 1]!) + 1 : length;
      expect(read, label).toBe(at);
    }
  });
});
