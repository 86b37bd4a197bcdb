// Property tests of the rank path's own parts against what they stand for: the LIKE matcher against
// SQLite's LIKE, the kept row orders against a plain sort, and mixed filters and sorts against plain SQL.
import { describe, expect, it } from 'vitest';
import Database from '../../fixtures/lib/sqlite.js';
import { mulberry32 } from '../../fixtures/lib/prng.js';
import { likeTexts, markLike } from '../../src/areas/dkan/like-match.js';
import {
  Orders,
  combinedOrders,
  sortRows,
  twoKeys,
  type RankSource,
  type SortKey,
} from '../../src/areas/dkan/rank-order.js';
import { twoKeyPage, type Kept } from '../../src/areas/dkan/run-page.js';
import { catalogOf } from '../../src/areas/dkan/datasets.js';
import { sqlForRequest } from '../../bench/dkan-shapes.js';
import { testApp } from '../helpers/app.js';

const random = mulberry32(2026);
const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
/** Runs of wildcards with a `%` that more pattern follows: each one is a point the matcher may retry from. */
const retriedRuns = (p: string) => (p.match(/[%_]*%[%_]*(?=[^%_])/g) ?? []).length;

describe('LIKE over a dictionary in memory', () => {
  const pieces = ['a', 'B', 'ab', 'Ab', '_', '%', 'é', 'É', 'ß', '😀', '1', '2.5', ' ', 'x_y', 'Z', '\\', '.', '*'];
  const word = () => Array.from({ length: Math.floor(random() * 5) }, () => pick(pieces)).join('');

  it('marks exactly the ranks SQLite LIKE finds, NULLs and case folding included', () => {
    const db = new Database(':memory:');
    const values = [...new Set(Array.from({ length: 400 }, word))];
    db.exec('CREATE TABLE d (rank INTEGER PRIMARY KEY, v TEXT)');
    const insert = db.prepare('INSERT INTO d (rank, v) VALUES (?, ?)');
    values.forEach((v, i) => insert.run(i + 1, v));
    insert.run(values.length + 1, null);
    const distinct = values.length + 1;
    const joined = db
      .prepare("SELECT group_concat(o, char(10)) FROM (SELECT COALESCE(v, '') AS o FROM d ORDER BY rank)")
      .pluck()
      .get() as string;
    const texts = likeTexts(joined, distinct, [distinct])!;
    expect(texts).not.toBeNull();
    const sql = db.prepare('SELECT rank FROM d WHERE v LIKE ? ORDER BY rank').pluck();
    const patterns = ['', '%', '%%', '_', '__', 'a%', '%b', '%AB%', 'é%', '%É%', '😀', '_😀%', '%\\%', '%.%'];
    for (let i = 0; i < 400; i++) {
      // By code points: a pattern with half of a surrogate pair is left to SQLite (tested below).
      const base = [...pick(values)];
      const cut = Math.floor(random() * (base.length + 1));
      const p = pick([
        `%${base.slice(cut).join('')}%`,
        `${base.slice(0, cut).join('')}%`,
        base.join('').toUpperCase(),
        `%${word()}_${word()}%`,
        `${word()}%${word()}`,
      ]);
      patterns.push(p);
    }
    patterns.push(`${'%_'.repeat(12)}%!`, '%_%', '_%_', 'a%_', '%a_b%', '%%a%%');
    for (const p of patterns) {
      const member = new Uint8Array(distinct + 1);
      if (!markLike(texts, p, member)) {
        // Only patterns a backtracking engine could take exponential time on go back to SQLite.
        expect(retriedRuns(p), p).toBeGreaterThan(1);
        continue;
      }
      const got = [...member.keys()].filter((r) => member[r] === 1);
      expect(got, p).toEqual(sql.all(p));
    }
    db.close();
  });

  it('answers runs of wildcards in one step and leaves patterns it would retry many times to SQLite', () => {
    // `%_%_...%!` once took seconds to minutes (each `%` a backtracking point); as one run it is one step.
    const line = 'x'.repeat(200);
    const texts = likeTexts([line, `${line}!`].join('\n'), 2, [])!;
    const member = new Uint8Array(3);
    expect(markLike(texts, `${'%_'.repeat(20)}%!`, member)).toBe(true);
    expect([...member]).toEqual([0, 0, 1]);
    expect(markLike(texts, '%x%y%!', new Uint8Array(3))).toBe(false);
    expect(markLike(texts, '%x_y%', new Uint8Array(3))).toBe(true);
  });

  it('leaves patterns and values it cannot read exactly to SQLite', () => {
    expect(likeTexts('a\r\nb', 3, [])).toBeNull();
    expect(likeTexts('a\nb', 3, [])).toBeNull();
    const texts = likeTexts('a\nb', 2, [])!;
    const member = new Uint8Array(3);
    expect(markLike(texts, 'a\0', member)).toBe(false);
    expect(markLike(texts, '\uD800%', member)).toBe(false);
    expect(markLike(texts, 'x'.repeat(2000), member)).toBe(false);
  });
});

describe('row orders kept per sort-key list', () => {
  const column = (name: string, distinct: number, rows: number): RankSource => {
    const ranks = new Uint32Array(rows + 1);
    for (let rn = 1; rn <= rows; rn++) ranks[rn] = 1 + Math.floor(random() * distinct);
    return { name, ranks, distinct };
  };

  it('walks rows exactly as a sort by the keys, then record_number in the last key direction', () => {
    const rows = 3000;
    const cols = [column('a', 3, rows), column('b', 40, rows), column('c', 2500, rows)];
    const orders = new Orders(rows);
    for (let i = 0; i < 60; i++) {
      const keys: SortKey[] = Array.from({ length: 1 + Math.floor(random() * 3) }, () => ({
        col: random() < 0.15 ? null : pick(cols),
        desc: random() < 0.5,
      }));
      const cut = keys.findIndex((k) => k.col === null);
      const used = cut < 0 ? keys : keys.slice(0, cut + 1);
      const lastDesc = used[used.length - 1]!.desc;
      const want = Array.from({ length: rows }, (_, k) => k + 1).sort((x, y) => {
        for (const k of used) {
          const d = k.col === null ? x - y : k.col.ranks[x]! - k.col.ranks[y]!;
          if (d !== 0) return k.desc ? -d : d;
        }
        return lastDesc ? y - x : x - y;
      });
      const walk = orders.walk(keys);
      const got = Array.from({ length: rows }, (_, k) => walk.at(k));
      expect(got, JSON.stringify(keys.map((k) => [k.col?.name ?? 'rn', k.desc]))).toEqual(want);
    }
  });

  it('sorts a few rows by themselves into the order the walk gives them', () => {
    const rows = 3000;
    const cols = [column('a', 3, rows), column('b', 40, rows), column('c', 2500, rows)];
    const orders = new Orders(rows);
    for (let i = 0; i < 60; i++) {
      const keys: SortKey[] = Array.from({ length: Math.floor(random() * 4) }, () => ({
        col: random() < 0.15 ? null : pick(cols),
        desc: random() < 0.5,
      }));
      // A random subset of the rows, in record_number order as the filter gives them.
      const kept = Array.from({ length: rows }, (_, k) => k + 1).filter(() => random() < 0.05);
      const walk = orders.walk(keys);
      const inWalk = new Set(kept);
      const want = Array.from({ length: rows }, (_, k) => walk.at(k)).filter((rn) => inWalk.has(rn));
      const got = Array.from(sortRows(Uint32Array.from(kept), keys));
      expect(got, JSON.stringify(keys.map((k) => [k.col?.name ?? 'rn', k.desc]))).toEqual(want);
    }
  });

  it('pages two sort keys run by run exactly as the plain sort, kept rows of every filter kind', () => {
    const rows = 3000;
    const cols = [column('a', 3, rows), column('b', 40, rows), column('c', 2500, rows), column('d', 1, rows)];
    const orders = new Orders(rows);
    let paged = 0;
    for (let i = 0; i < 600; i++) {
      const keys: SortKey[] = Array.from({ length: 2 + Math.floor(random() * 2) }, () => ({
        col: random() < 0.2 ? null : pick(cols),
        desc: random() < 0.5,
      }));
      const two = twoKeys(keys);
      if (!two) continue;
      paged++;
      // No filter, a condition on one column's ranks (the first key's or another's), or rows kept one by one.
      const kind = pick(['none', 'first', 'other', 'rows'] as const);
      const by = kind === 'first' ? two.first : pick(cols);
      const member = new Uint8Array(kind === 'rows' ? rows + 1 : by.distinct + 1).map(() => (random() < 0.6 ? 1 : 0));
      const keep = kind === 'none' ? null : member;
      const col = kind === 'none' || kind === 'rows' ? null : by;
      const isKept = (rn: number) => keep === null || keep[col ? col.ranks[rn]! : rn] === 1;
      const walk = orders.walk(keys);
      const want = Array.from({ length: rows }, (_, k) => walk.at(k)).filter(isKept);
      // The count only guides how a run is read: a wrong one must not change the page.
      const count = random() < 0.7 ? want.length : 1 + Math.floor(random() * rows);
      const kept: Kept = { keep, col, count };
      const offset = pick([0, 0, 1, 17, 500, 1400, 2999, 5000]);
      const limit = pick([1, 10, 100, 1000, Infinity]);
      const label = JSON.stringify([keys.map((k) => [k.col?.name ?? 'rn', k.desc]), kind, count, offset, limit]);
      expect(twoKeyPage(orders, two, kept, offset, limit).rows, label).toEqual(
        want.slice(offset, Number.isFinite(limit) ? offset + limit : undefined),
      );
    }
    expect(paged).toBeGreaterThan(200);
  });

  it('makes the combined order of two keys only once pages without it have read 16 times the rows', () => {
    const rows = 3000;
    const shared = combinedOrders();
    const orders = new Orders(rows, shared);
    const [a, b] = [column('a', 3, rows), column('b', 40, rows)];
    const keys: SortKey[] = [
      { col: a, desc: false },
      { col: b, desc: true },
    ];
    const flipped: SortKey[] = keys.map((k) => ({ ...k, desc: !k.desc }));
    const id = (list: SortKey[]) => orders.combinedId(twoKeys(list)!);
    expect(orders.combinedDue(id(keys))).toBe(false);
    orders.spend(id(keys), 8 * rows);
    expect(orders.combinedDue(id(keys))).toBe(false);
    orders.spend(id(flipped), 8 * rows);
    // The flipped directions are the same order read backwards: what either read counts for both.
    expect(orders.combinedDue(id(keys))).toBe(true);
    expect(orders.combinedDue(id([keys[0]!, { col: b, desc: false }]))).toBe(false);
    expect(shared.size).toBe(0);
    orders.walk(keys);
    expect(shared.size).toBe(1);
    // A combined order made by a walk is the one the id names: pages then walk it.
    const other: SortKey[] = [
      { col: a, desc: true },
      { col: b, desc: true },
    ];
    expect(orders.combinedDue(id(other))).toBe(false);
    orders.walk(other);
    expect(orders.combinedDue(id(other))).toBe(true);
  });

  it('keeps the combined orders of resources with the same column names apart in one shared bound', () => {
    const rows = 500;
    const shared = combinedOrders();
    const [one, two] = [new Orders(rows, shared, 'one'), new Orders(rows, shared, 'two')];
    const a1 = column('a', 3, rows);
    const b1 = column('b', 7, rows);
    const a2 = column('a', 3, rows);
    const b2 = column('b', 7, rows);
    const walkOf = (orders: Orders, keys: SortKey[]) => {
      const walk = orders.walk(keys);
      return Array.from({ length: rows }, (_, k) => walk.at(k));
    };
    const first = walkOf(one, [
      { col: a1, desc: false },
      { col: b1, desc: true },
    ]);
    const second = walkOf(two, [
      { col: a2, desc: false },
      { col: b2, desc: true },
    ]);
    expect(shared.size).toBe(2);
    // Each as a store of its own would walk it: the other resource's order under the same names is not used.
    expect(
      walkOf(new Orders(rows), [
        { col: a2, desc: false },
        { col: b2, desc: true },
      ]),
    ).toEqual(second);
    expect(
      walkOf(new Orders(rows), [
        { col: a1, desc: false },
        { col: b1, desc: true },
      ]),
    ).toEqual(first);
  });
});

describe('mixed filters and sorts on the rank path', async () => {
  const { app, store, config } = await testApp({ dkanNoCache: true });
  const r = catalogOf(store)
    .datasets.flatMap((d) => d.resources)
    .sort((x, y) => y.rows - x.rows)[0]!;
  const cols = r.columns;

  /** The query's answer through the app equals its plain SQL's (the page's rows and the count). */
  const answersAsPlainSql = async (path: string) => {
    const res = await app.inject(`/dkan${path}`);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<{ results: unknown; count: number }>();
    const plan = sqlForRequest(store, config, `/dkan${path}`);
    const want = {
      results: JSON.parse(store.prepare(plan.rowsSql).pluck(true).get(plan.rowsParams) as string),
      count: store.prepare(plan.countSql).pluck(true).get(plan.countParams),
    };
    expect({ results: body.results, count: body.count }, path).toEqual(want);
  };

  it('answers groups, three sort keys and wildcard patterns exactly as the plain SQL', async () => {
    const base = `/datastore/query/${r.datasetId}/${r.index}`;
    const value = (c: (typeof cols)[number]) =>
      String(
        store.prepare(`SELECT ${c.ident} FROM ${r.table} WHERE ${c.ident} IS NOT NULL LIMIT 1 OFFSET 7`).pluck().get(),
      );
    for (let i = 0; i < 60; i++) {
      const [a, b, c] = [pick(cols), pick(cols), pick(cols)];
      const v = value(a);
      const parts = [
        `sorts[0][property]=${pick(cols).name}&sorts[0][order]=${pick(['asc', 'desc'])}`,
        `sorts[1][property]=${pick([...cols.map((x) => x.name), 'record_number'])}&sorts[1][order]=${pick(['asc', 'desc'])}`,
        `sorts[2][property]=${pick(cols).name}&sorts[2][order]=${pick(['asc', 'desc'])}`,
        `conditions[0][groupOperator]=${pick(['and', 'or'])}`,
        `conditions[0][conditions][0][property]=${a.name}&conditions[0][conditions][0][operator]=${pick(['like', 'contains', 'starts with'])}&conditions[0][conditions][0][value]=${encodeURIComponent(pick([`${v.slice(0, 2)}_%`, v.slice(1, 3), `%${v.slice(-2)}`, '_']))}`,
        `conditions[0][conditions][1][property]=${b.name}&conditions[0][conditions][1][operator]=${pick(['is_empty', 'not_empty'])}`,
        `conditions[1][property]=${c.name}&conditions[1][operator]=${encodeURIComponent(pick(['<>', '>=']))}&conditions[1][value]=${encodeURIComponent(value(c))}`,
        `limit=${pick([5, 50, 300])}&offset=${pick([0, 3, 400])}`,
      ];
      // Every other query: one condition on the first sort key, whose runs are then kept or passed whole.
      if (i % 2 === 1)
        parts.splice(
          0,
          parts.length,
          `sorts[0][property]=${a.name}&sorts[0][order]=${pick(['asc', 'desc'])}`,
          `conditions[0][property]=${a.name}&conditions[0][operator]=${encodeURIComponent(pick(['<>', '>=', '<', 'contains', 'not_empty']))}&conditions[0][value]=${encodeURIComponent(v.slice(0, 2))}`,
          `limit=${pick([5, 50, 300])}&offset=${pick([0, 3, 400, 5000])}`,
        );
      await answersAsPlainSql(`${base}?${parts.join('&')}`);
    }
  }, 120_000);

  it('answers two sort keys, paged run by run of the first, exactly as the plain SQL', async () => {
    const base = `/datastore/query/${r.datasetId}/${r.index}`;
    for (let i = 0; i < 60; i++) {
      const [first, second] = [pick(cols), pick([...cols, null])];
      const parts = [
        `sorts[0][property]=${first.name}&sorts[0][order]=${pick(['asc', 'desc'])}`,
        `sorts[1][property]=${second?.name ?? 'record_number'}&sorts[1][order]=${pick(['asc', 'desc'])}`,
        `limit=${pick([1, 10, 100, 500])}&offset=${pick([0, 7, 100, 2500, 20000])}`,
      ];
      // No condition, or one on the first key, the second or another column: kept by runs or by rows.
      const on = pick([null, first, second ?? first, pick(cols)]);
      if (on) {
        const v = String(
          store
            .prepare(`SELECT ${on.ident} FROM ${r.table} WHERE ${on.ident} IS NOT NULL LIMIT 1 OFFSET 11`)
            .pluck()
            .get(),
        );
        const operator = pick(['<>', '>=', '<', '=', 'contains', 'not_empty']);
        const value = operator === 'contains' ? v.slice(0, 1) : v;
        parts.push(
          `conditions[0][property]=${on.name}&conditions[0][operator]=${encodeURIComponent(operator)}&conditions[0][value]=${encodeURIComponent(value)}`,
        );
      }
      await answersAsPlainSql(`${base}?${parts.join('&')}`);
    }
  }, 120_000);
});
