// One DKAN query answered whole, synchronously, on a query process of the executor (src/query-child.ts):
// the query is read again from what the client sent, ranked or planned, run, and its JSON or CSV built.
import type { TakeBytes } from '../../platform/data/answer-arena.js';
import type { FixtureStore } from '../../platform/data/fixture-store.js';
import { runSteps, type Step } from '../../platform/data/steps.js';
import { LRUCache } from 'lru-cache';
import { resourceById } from './datasets.js';
import { readQuery, type DkanQuery } from './parse.js';
import { rankedPage, rankedResource, unsupported, type RankedPage } from './ranked.js';
import { pageJson } from './row-cache.js';
import { csvHeader, csvLine, planQuery, schemaJson, wholeRows, type CsvHeadersMode, type Plan } from './sql.js';

export const JSON_TYPE = 'application/json';
export const CSV_TYPE = 'text/csv; charset=utf-8';
export const CSV_HEADERS = { 'content-disposition': 'attachment; filename="data.csv"' };

/** What the route read the query from, enough to read it again where it runs. */
export interface AnswerInput {
  /** The query string or JSON body as parsed (parseQueryString / parseBody). */
  sent: Record<string, unknown>;
  /** The distribution the path names; null on /datastore/query. */
  resourceId: string | null;
  maxLimit: number;
  csvHeaders: CsvHeadersMode;
}

export interface AnswerOutput {
  contentType: string;
  /** Bytes (JSON answers: sent through the executor's channel and to the client without a copy to text). */
  body: string | Uint8Array;
  headers?: Record<string, string>;
}

/** Counts by SQL and schemas by resources, kept as long as the store (a process's connection) lives. */
const cachesOf = (store: FixtureStore) =>
  store.memo('dkan:answer-caches', () => ({
    counts: new LRUCache<string, number>({ max: 10_000 }),
    schemas: new LRUCache<string, string>({ max: 1_000 }),
  }));

/** `bytes`: where a JSON answer's bytes are written (a query process's AnswerArena; by default, a new Buffer). */
export function dkanAnswer(
  store: FixtureStore,
  input: AnswerInput,
  bytes: TakeBytes = Buffer.allocUnsafe,
): AnswerOutput {
  const resource = input.resourceId === null ? undefined : resourceById(store, input.resourceId);
  const q = readQuery(input.sent, {
    ...(resource ? { resource } : {}),
    byId: (id) => resourceById(store, id),
    maxLimit: input.maxLimit,
    download: false,
  });
  if (q.sources.length === 0) return emptyAnswer(q, JSON.stringify(q.echo));
  return q.format === 'csv' ? csvAnswer(store, q, input.csvHeaders) : jsonAnswer(store, q, bytes);
}

/** The filtered, sorted page and count from the rank arrays, when they answer the query exactly; else null. */
function rankedAnswer(store: FixtureStore, q: DkanQuery): RankedPage | null {
  if (q.sources.length !== 1) return null;
  const ranked = rankedResource(store, q.sources[0]!.resource);
  if (!ranked || unsupported(q, ranked) !== null) return null;
  return rankedPage(ranked, q, (list) =>
    runSteps(
      store,
      list.map((l): Step => ({ op: l.kind === 'first' ? 'pluckGet' : 'pluckAll', sql: l.sql, params: l.params })),
    ),
  );
}

const countKey = (plan: Plan) => `${plan.countSql}\0${JSON.stringify(plan.countParams)}`;

/** The plan's count, counted once per store. */
function countOf(store: FixtureStore, plan: Plan): number {
  const counts = cachesOf(store).counts;
  let count = counts.get(countKey(plan));
  if (count === undefined) {
    count = runSteps(store, [{ op: 'pluckGet', sql: plan.countSql, params: plan.countParams }])[0] as number;
    counts.set(countKey(plan), count);
  }
  return count;
}

function jsonAnswer(store: FixtureStore, q: DkanQuery, bytes: TakeBytes): AnswerOutput {
  const caches = cachesOf(store);
  const page = rankedAnswer(store, q);
  // A ranked page of whole rows is copied from the row cache; anything else is planned as SQL.
  const cached = page !== null && wholeRows(q);
  const plan = cached ? null : planQuery(q, page?.rows);
  let body = '';
  if (q.count) body += `"count":${page?.count ?? countOf(store, plan!)},`;
  if (q.schema) {
    const key = `${q.sources.map((s) => s.resource.distributionId).join('\0')}\0${q.rowIds}`;
    let schema = caches.schemas.get(key);
    if (schema === undefined) {
      schema = schemaJson(q);
      caches.schemas.set(key, schema);
    }
    body += `"schema":${schema},`;
  }
  body += `"query":${JSON.stringify(q.echo)}}`;
  if (!q.results) return { contentType: JSON_TYPE, body: `{${body}` };
  const after = Buffer.from(`,${body}`);
  if (plan === null) {
    // Written around the rows as they are copied: no second copy of the page.
    return {
      contentType: JSON_TYPE,
      body: pageJson(store, q.sources[0]!.resource, page!.rows, RESULTS_OPEN, after, bytes),
    };
  }
  // As bytes: better-sqlite3 makes a JS string of a long text far more slowly than a Buffer of the same bytes.
  const sql = `SELECT CAST((${plan.rowsSql}) AS BLOB)`;
  const results = runSteps(store, [{ op: 'pluckGet', sql, params: plan.rowsParams }])[0] as Buffer;
  const out = bytes(RESULTS_OPEN.length + results.length + after.length);
  out.set(RESULTS_OPEN);
  out.set(results, RESULTS_OPEN.length);
  out.set(after, RESULTS_OPEN.length + results.length);
  return { contentType: JSON_TYPE, body: out };
}

const RESULTS_OPEN = Buffer.from('{"results":');

/** No resource named on /datastore/query: DKAN's Query service answers nothing found. */
export function emptyAnswer(q: DkanQuery, echo: string): AnswerOutput {
  if (q.format === 'csv') return { contentType: CSV_TYPE, body: '', headers: CSV_HEADERS };
  const parts = [
    q.results ? '"results":[]' : '',
    q.count ? '"count":0' : '',
    q.schema ? '"schema":{}' : '',
    `"query":${echo}`,
  ];
  return { contentType: JSON_TYPE, body: `{${parts.filter(Boolean).join(',')}}` };
}

/** QueryController's CSV: header and rows of the page; no rows give an empty body (CSVResponse of []). */
function csvAnswer(store: FixtureStore, q: DkanQuery, mode: CsvHeadersMode): AnswerOutput {
  const page = q.results ? rankedAnswer(store, q) : null;
  const plan = planQuery(q, page?.rows);
  const rows = q.results
    ? (runSteps(store, [{ op: 'rawAll', sql: plan.rowsSql, params: plan.rowsParams }])[0] as unknown[][])
    : [];
  if (rows.length === 0) return { contentType: CSV_TYPE, body: '', headers: CSV_HEADERS };
  const header = csvHeader(q, mode);
  return { contentType: CSV_TYPE, body: [header, ...rows].map(csvLine).join(''), headers: CSV_HEADERS };
}

/** One page of a CSV download: a rows statement (LIMIT, OFFSET last) and the most characters of text to return. */
export interface CsvPageInput {
  sql: string;
  params: unknown[];
  maxChars: number;
}

export interface CsvPage {
  text: string;
  rows: number;
  /** Cut at maxChars: rows of this page's LIMIT may follow. */
  cut: boolean;
}

/**
 * A download's page as CSV text, formatted where it is read (a query process): rows until `maxChars`, so that
 * a page of long cells stays small, and the server only copies the text on.
 */
export function csvPage(store: FixtureStore, { sql, params, maxChars }: CsvPageInput): CsvPage {
  const lines: string[] = [];
  let chars = 0;
  for (const row of store.prepare(sql).raw(true).iterate(params) as Iterable<unknown[]>) {
    const line = csvLine(row);
    lines.push(line);
    chars += line.length;
    if (chars >= maxChars) return { text: lines.join(''), rows: lines.length, cut: true };
  }
  return { text: lines.join(''), rows: lines.length, cut: false };
}
