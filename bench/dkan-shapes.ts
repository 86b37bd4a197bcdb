// The DKAN query mix the benchmark sends: every column as a sort (both directions, sometimes two sorts),
// each operator family as a filter on columns of every type, offsets from 0 to 10,000, with values drawn
// from the data itself. Seeded, so every run sends the same requests.
import { mulberry32 } from '../fixtures/lib/prng.js';
import type { FixtureStore } from '../src/platform/data/fixture-store.js';
import type { Config } from '../src/config.js';
import { resourceAt, resourceById } from '../src/areas/dkan/datasets.js';
import { parseQueryString, readQuery } from '../src/areas/dkan/parse.js';
import { planQuery, type Plan } from '../src/areas/dkan/sql.js';

interface Column {
  name: string;
  type: 'text' | 'integer' | 'decimal' | 'date';
}

export interface ResourceRef {
  datasetId: string;
  index: number;
  table: string;
  rows: number;
  columns: Column[];
}

export function resourceRef(store: FixtureStore, datasetId: string, index: number): ResourceRef {
  const r = store.db
    .prepare(
      'SELECT distribution_id AS id, table_name AS t, row_count AS n FROM dkan_resources WHERE dataset_id = ? AND idx = ?',
    )
    .get(datasetId, index) as { id: string; t: string; n: number } | undefined;
  if (!r) throw new Error(`no DKAN resource ${datasetId}/${index}: is the fixture database built?`);
  const columns = store.db
    .prepare('SELECT name, type FROM dkan_columns WHERE distribution_id = ? ORDER BY position')
    .all(r.id) as Column[];
  return { datasetId, index, table: r.t, rows: r.n, columns };
}

/** The dataset the mix runs on: the first dataset's largest resource. */
export function largestResource(store: FixtureStore): ResourceRef {
  const r = store.db
    .prepare('SELECT dataset_id AS d, idx AS i FROM dkan_resources ORDER BY row_count DESC LIMIT 1')
    .get() as { d: string; i: number };
  return resourceRef(store, r.d, r.i);
}

type Family = 'none' | 'equality' | 'comparison' | 'range' | 'set' | 'pattern' | 'emptiness';
export const FAMILIES: readonly Family[] = ['none', 'equality', 'comparison', 'range', 'set', 'pattern', 'emptiness'];
const OFFSETS = [0, 0, 100, 500, 1000, 2500, 5000, 10000];

export interface Shape {
  family: Family;
  sort: string;
  path: string;
}

const q = encodeURIComponent;

/** `count` distinct requests of the mix on one resource, as paths under the area prefix (/dkan...). */
export function dkanShapes(store: FixtureStore, res: ResourceRef, count: number, seed = 7): Shape[] {
  const random = mulberry32(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const valueAt = (column: string): string => {
    const row = Math.floor(random() * res.rows) + 1;
    const v = store.db
      .prepare(`SELECT "${column.replace(/"/g, '""')}" FROM ${res.table} WHERE record_number = ?`)
      .pluck()
      .get(row);
    return v === null || v === undefined ? '' : String(v);
  };
  const shapes: Shape[] = [];
  for (let i = 0; i < count; i++) {
    const family = FAMILIES[i % FAMILIES.length]!;
    const sortCol = res.columns[i % res.columns.length]!;
    const order = random() < 0.5 ? 'asc' : 'desc';
    const parts: string[] = [`sorts[0][property]=${sortCol.name}`, `sorts[0][order]=${order}`];
    if (random() < 0.25)
      parts.push(`sorts[1][property]=${pick(res.columns).name}`, `sorts[1][order]=${pick(['asc', 'desc'])}`);
    const col = pick(res.columns);
    const cond = (operator: string, value: string, k = 0) =>
      parts.push(
        `conditions[${k}][property]=${col.name}`,
        `conditions[${k}][operator]=${q(operator)}`,
        `conditions[${k}][value]=${q(value)}`,
      );
    switch (family) {
      case 'none':
        break;
      case 'equality':
        cond(pick(['=', '<>']), valueAt(col.name));
        break;
      case 'comparison':
        cond(pick(['<', '<=', '>', '>=']), valueAt(col.name));
        break;
      case 'range': {
        const [a, b] = [valueAt(col.name), valueAt(col.name)].sort();
        parts.push(
          `conditions[0][property]=${col.name}`,
          'conditions[0][operator]=between',
          `conditions[0][value][0]=${q(a!)}`,
          `conditions[0][value][1]=${q(b!)}`,
        );
        break;
      }
      case 'set': {
        const values = Array.from({ length: 2 + Math.floor(random() * 4) }, () => valueAt(col.name));
        parts.push(`conditions[0][property]=${col.name}`, `conditions[0][operator]=${q(pick(['in', 'not in']))}`);
        values.forEach((v, k) => parts.push(`conditions[0][value][${k}]=${q(v)}`));
        break;
      }
      case 'pattern': {
        const v = valueAt(col.name);
        const start = Math.floor(random() * Math.max(1, v.length - 3));
        const piece = v.slice(start, start + 3) || 'a';
        const op = pick(['contains', 'starts with', 'like']);
        cond(op, op === 'like' ? `%${piece}%` : op === 'starts with' ? v.slice(0, 3) : piece);
        break;
      }
      case 'emptiness':
        parts.push(`conditions[0][property]=${col.name}`, `conditions[0][operator]=${pick(['is_empty', 'not_empty'])}`);
        break;
    }
    parts.push(`limit=${pick([10, 100, 100, 500])}`, `offset=${pick(OFFSETS)}`);
    shapes.push({
      family,
      sort: sortCol.name,
      path: `/dkan/datastore/query/${res.datasetId}/${res.index}?${parts.join('&')}`,
    });
  }
  return shapes;
}

/**
 * The prepared SQL and bound values mockyard's DKAN handler runs for one request (a path under /dkan with its
 * query string), through the area's own parser and planner: the same-SQL baseline runs exactly these.
 */
export function sqlForRequest(store: FixtureStore, config: Config, requestPath: string): Plan {
  const [pathname, raw = ''] = requestPath.split(/\?(.*)/s, 2) as [string, string?];
  const m = /\/datastore\/query\/([^/]+)\/([^/]+)$/.exec(pathname);
  const resource = m ? resourceAt(store, decodeURIComponent(m[1]!), m[2]!) : undefined;
  if (!resource) throw new Error(`${requestPath}: not a DKAN dataset/index query path`);
  const q = readQuery(parseQueryString(raw), {
    resource,
    byId: (id) => resourceById(store, id),
    maxLimit: config.dkanMaxLimit,
    download: false,
  });
  return planQuery(q);
}
