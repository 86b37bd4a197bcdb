// Runs a checked query's SQL (built in sql.ts) against the fixture database; SQLite builds the JSON, answers are cached.
import { Readable } from 'node:stream';
import { LRUCache } from 'lru-cache';
import type { Config } from '../../config.js';
import type { FixtureStore } from '../../platform/data/fixture-store.js';
import { WorkBudgetError, type QueryPool, type Step } from '../../platform/data/query-pool.js';
import { queryBusy, queryTooLong } from './errors.js';
import type { DkanQuery } from './parse.js';
import { rankedPage, rankedResource, unsupported, type DictLookup, type RankedPage } from './ranked.js';
import { csvHeader, csvLine, planQuery, schemaJson, type Plan } from './sql.js';

export type { Plan } from './sql.js';

export interface Answer {
  contentType: string;
  body: Buffer;
  headers?: Record<string, string>;
}

/** A CSV download, streamed row by row. */
export interface StreamAnswer {
  contentType: string;
  body: Readable;
  headers: Record<string, string>;
}

const JSON_TYPE = 'application/json';
const CSV_TYPE = 'text/csv; charset=utf-8';
const CSV_HEADERS = { 'content-disposition': 'attachment; filename="data.csv"' };

/**
 * What one store remembers while it lives: counts by SQL and schema keys by resources. Whole answers are
 * kept by the platform's answer cache (platform/http/answer-cache.ts).
 */
function cachesOf(store: FixtureStore) {
  return store.memo('dkan:caches', () => ({
    counts: new LRUCache<string, number>({ max: 10_000 }),
    schemas: new LRUCache<string, string>({ max: 1_000 }),
  }));
}

type Caches = ReturnType<typeof cachesOf>;

/** Runs SQL steps off the event loop (query-pool.ts) under the work budget, answered in DKAN's shape past it. */
export type Run = (steps: Step[]) => Promise<unknown[]>;

function runner(pool: QueryPool, store: FixtureStore, config: Config): Run {
  return async (steps) => {
    try {
      return await pool.run(store, steps, config.queryTimeout);
    } catch (err) {
      if (err instanceof WorkBudgetError) throw err.started ? queryTooLong(err.budgetMs) : queryBusy(err.budgetMs);
      throw err;
    }
  };
}

/** The answer to a checked query; the echo is the query as sent with the resources filled in. */
export async function runQuery(pool: QueryPool, store: FixtureStore, config: Config, q: DkanQuery): Promise<Answer> {
  const echo = JSON.stringify(q.echo);
  if (q.sources.length === 0) return emptyAnswer(q, echo);
  const run = runner(pool, store, config);
  if (q.format === 'csv') return csvAnswer(run, config, store, q);
  return jsonAnswer(run, store, cachesOf(store), q, echo);
}

/** The download routes: the header row, then every row in pages (QueryDownloadController). */
export function downloadQuery(pool: QueryPool, store: FixtureStore, config: Config, q: DkanQuery): StreamAnswer {
  const headers = { ...CSV_HEADERS, 'x-accel-buffering': 'no', 'cache-control': 'max-age=3600, public' };
  if (q.sources.length === 0 || !q.schema) {
    // getHeaderRow needs the schema; DKAN writes its exception message as the only CSV row.
    return { contentType: CSV_TYPE, headers, body: Readable.from([csvLine(['Could not generate header for CSV.'])]) };
  }
  // Large pages: a sorted query sorts the table once per page.
  const batch = 20_000;
  const plan = planQuery({ ...q, format: 'csv', limit: batch });
  const run = runner(pool, store, config);
  const fixed = plan.rowsParams.slice(0, -2);
  const header = csvLine(csvHeader(q, config.dkanCsvHeaders));
  const end = q.limit === null ? Infinity : q.offset + q.limit;
  // Pages of rows, each read by its own statement run in the query pool: an open SQLite cursor would block
  // the connection for every other request while the client reads, and a million-row download never sits
  // in memory.
  async function* pages(): AsyncGenerator<string> {
    yield header;
    for (let offset = q.offset; offset < end; offset += batch) {
      const [rows] = (await run([
        { op: 'rawAll', sql: plan.rowsSql, params: [...fixed, Math.min(batch, end - offset), offset] },
      ])) as [unknown[][]];
      if (rows.length > 0) yield rows.map(csvLine).join('');
      if (rows.length < batch) return;
    }
  }
  return { contentType: CSV_TYPE, headers, body: Readable.from(pages()) };
}

const countKey = (plan: Plan) => `${plan.countSql}\0${JSON.stringify(plan.countParams)}`;

/**
 * The filtered, sorted page and count from the rank arrays (ranked.ts), when the query is one the rank
 * path answers exactly; null sends it to the plain SQL.
 */
async function rankedAnswer(run: Run, store: FixtureStore, q: DkanQuery): Promise<RankedPage | null> {
  if (q.sources.length !== 1) return null;
  const ranked = rankedResource(store, q.sources[0]!.resource);
  if (!ranked || unsupported(q, ranked) !== null) return null;
  // Dictionary lookups are SQL like any other (a pattern reads every distinct value): they run in the pool.
  const lookups = (list: DictLookup[]) =>
    run(list.map((l) => ({ op: l.kind === 'first' ? 'pluckGet' : 'pluckAll', sql: l.sql, params: l.params })));
  return rankedPage(ranked, q, lookups);
}

/** The rows (JSON text of the `results` array) and count a checked query asks for, through the rank path or SQL. */
export interface ResultParts {
  results?: string;
  count?: number;
}

async function resultParts(run: Run, store: FixtureStore, caches: Caches, q: DkanQuery): Promise<ResultParts> {
  const page = await rankedAnswer(run, store, q);
  const plan = planQuery(q, page?.rows);
  const steps: Step[] = [];
  if (q.results) steps.push({ op: 'pluckGet', sql: plan.rowsSql, params: plan.rowsParams });
  let count = page?.count ?? (q.count ? caches.counts.get(countKey(plan)) : undefined);
  if (q.count && count === undefined) steps.push({ op: 'pluckGet', sql: plan.countSql, params: plan.countParams });
  const out = steps.length > 0 ? await run(steps) : [];
  if (q.count && count === undefined) {
    count = out[out.length - 1] as number;
    caches.counts.set(countKey(plan), count);
  }
  return { ...(q.results ? { results: out[0] as string } : {}), ...(q.count ? { count: count! } : {}) };
}

/**
 * A JSON answer produced by running SQL steps in the query pool under the work budget: the executor the
 * query routes use, for the other routes. Repeated GETs are answered by the platform's answer cache;
 * `_key` names the answer for callers that log it.
 */
export async function cachedJson(
  pool: QueryPool,
  store: FixtureStore,
  config: Config,
  _key: string,
  produce: (run: Run) => Promise<Buffer>,
): Promise<Answer> {
  return { contentType: JSON_TYPE, body: await produce(runner(pool, store, config)) };
}

/** A checked query's rows and count, shaped into another route's body (the SQL endpoint); `variant` keys the shape. */
export function queryParts(
  pool: QueryPool,
  store: FixtureStore,
  config: Config,
  q: DkanQuery,
  variant: string,
  shape: (parts: ResultParts) => Buffer,
): Promise<Answer> {
  const caches = cachesOf(store);
  return cachedJson(pool, store, config, `${variant}:${JSON.stringify(q.echo)}`, async (run) =>
    shape(await resultParts(run, store, caches, q)),
  );
}

async function jsonAnswer(run: Run, store: FixtureStore, caches: Caches, q: DkanQuery, echo: string): Promise<Answer> {
  const { results, count } = await resultParts(run, store, caches, q);
  let body = '{';
  if (q.results) body += `"results":${results},`;
  if (q.count) body += `"count":${count},`;
  if (q.schema) {
    const key = `${q.sources.map((s) => s.resource.distributionId).join('\0')}\0${q.rowIds}`;
    let schema = caches.schemas.get(key);
    if (schema === undefined) {
      schema = schemaJson(q);
      caches.schemas.set(key, schema);
    }
    body += `"schema":${schema},`;
  }
  body += `"query":${echo}}`;
  return { contentType: JSON_TYPE, body: Buffer.from(body) };
}

/** No resource named on /datastore/query: DKAN's Query service answers nothing found. */
function emptyAnswer(q: DkanQuery, echo: string): Answer {
  if (q.format === 'csv') return { contentType: CSV_TYPE, body: Buffer.alloc(0), headers: CSV_HEADERS };
  const parts = [
    q.results ? '"results":[]' : '',
    q.count ? '"count":0' : '',
    q.schema ? '"schema":{}' : '',
    `"query":${echo}`,
  ];
  return { contentType: JSON_TYPE, body: Buffer.from(`{${parts.filter(Boolean).join(',')}}`) };
}

/** QueryController's CSV: header and rows of the page; no rows give an empty body (CSVResponse of []). */
async function csvAnswer(run: Run, config: Config, store: FixtureStore, q: DkanQuery): Promise<Answer> {
  const page = q.results ? await rankedAnswer(run, store, q) : null;
  const plan = planQuery(q, page?.rows);
  const rows = q.results
    ? ((await run([{ op: 'rawAll', sql: plan.rowsSql, params: plan.rowsParams }]))[0] as unknown[][])
    : [];
  if (rows.length === 0) return { contentType: CSV_TYPE, body: Buffer.alloc(0), headers: CSV_HEADERS };
  const header = csvHeader(q, config.dkanCsvHeaders);
  return { contentType: CSV_TYPE, body: Buffer.from([header, ...rows].map(csvLine).join('')), headers: CSV_HEADERS };
}
