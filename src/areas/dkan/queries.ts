// Answers a checked query: from the answer cache, or whole on the query executor (answer.ts runs there).
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../../config.js';
import type { FixtureStore } from '../../platform/data/fixture-store.js';
import type { QueryPool } from '../../platform/data/query-pool.js';
import { WorkBudgetError, inAreaTerms } from '../../platform/data/work-budget-error.js';
import type { Step } from '../../platform/data/steps.js';
import {
  CSV_HEADERS,
  CSV_TYPE,
  JSON_TYPE,
  emptyAnswer,
  type AnswerInput,
  type CsvPage,
  type CsvPageInput,
} from './answer.js';
import { queryBusy, queryTooLong } from './errors.js';
import type { DkanQuery } from './parse.js';
import { csvHeader, csvLine, planQuery } from './sql.js';

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

/** The executor's budget errors in DKAN's own shapes. */
const underBudget = <T>(work: Promise<T>): Promise<T> => inAreaTerms(work, queryTooLong, queryBusy);

/** What the route read: the query as sent (parsed) and the distribution its path names. */
export interface Sent {
  sent: Record<string, unknown>;
  resourceId: string | null;
}

/**
 * The answer to a checked query; the echo is the query as sent with the resources filled in. The query is
 * ranked, planned and run whole on the executor (answer.ts), under the work budget, never on the event loop.
 */
export async function runQuery(
  pool: QueryPool,
  store: FixtureStore,
  config: Config,
  q: DkanQuery,
  from: Sent,
): Promise<Answer> {
  const input: AnswerInput = { ...from, maxLimit: config.dkanMaxLimit, csvHeaders: config.dkanCsvHeaders };
  const out =
    q.sources.length === 0
      ? emptyAnswer(q, JSON.stringify(q.echo))
      : await underBudget(
          // A join's work is bounded by the product of its tables' rows, a single resource's by its rows.
          pool.runTask(store, 'dkan:answer', input, config.queryTimeout, { heavy: q.sources.length > 1 }),
        );
  const body = out.body;
  return {
    contentType: out.contentType,
    // The executor's bytes arrive as a Uint8Array: a Buffer over the same memory, not a copy.
    body: typeof body === 'string' ? Buffer.from(body) : Buffer.from(body.buffer, body.byteOffset, body.byteLength),
    ...(out.headers ? { headers: out.headers } : {}),
  };
}

/** Runs SQL steps on the executor under the work budget, answered in DKAN's shape past it. */
export type Run = (steps: Step[]) => Promise<unknown[]>;

const runner =
  (pool: QueryPool, store: FixtureStore, config: Config): Run =>
  (steps) =>
    underBudget(pool.run(store, steps, config.queryTimeout));

/** The rows (JSON text of the `results` array) and count a checked query asks for. */
export interface ResultParts {
  results?: string;
  count?: number;
}

/**
 * A JSON answer produced by running SQL steps on the executor under the work budget: the executor the
 * query routes use, for the other routes. Repeated GETs are answered by the platform's answer cache.
 */
export async function executedJson(
  pool: QueryPool,
  store: FixtureStore,
  config: Config,
  produce: (run: Run) => Promise<Buffer>,
): Promise<Answer> {
  return { contentType: JSON_TYPE, body: await produce(runner(pool, store, config)) };
}

/**
 * A checked query's rows and count, shaped into another route's body (the SQL endpoint). Its plain SQL runs
 * on the executor (the rank path reads the query as sent, which this route has not).
 */
export function queryParts(
  pool: QueryPool,
  store: FixtureStore,
  config: Config,
  q: DkanQuery,
  shape: (parts: ResultParts) => Buffer,
): Promise<Answer> {
  return executedJson(pool, store, config, async (run) => {
    const plan = planQuery(q);
    const steps: Step[] = [];
    if (q.results) steps.push({ op: 'pluckGet', sql: plan.rowsSql, params: plan.rowsParams });
    if (q.count) steps.push({ op: 'pluckGet', sql: plan.countSql, params: plan.countParams });
    const out = await run(steps);
    return shape({
      ...(q.results ? { results: out[0] as string } : {}),
      ...(q.count ? { count: out[out.length - 1] as number } : {}),
    });
  });
}

/**
 * The download routes: the header row, then every row in pages (QueryDownloadController). The first page
 * is read before anything is sent, so a query that fails (too slow, or no worker free) gets its error
 * status instead of a cut-off 200; later pages get a longer time limit, since the first one proved the
 * query can run. If one still fails, the connection is dropped before the chunked body's end, which
 * clients and caches see as incomplete.
 */
export async function downloadQuery(
  pool: QueryPool,
  store: FixtureStore,
  config: Config,
  q: DkanQuery,
): Promise<StreamAnswer> {
  const headers = { ...CSV_HEADERS, 'x-accel-buffering': 'no', 'cache-control': 'max-age=3600, public' };
  if (q.sources.length === 0 || !q.schema) {
    // getHeaderRow needs the schema; DKAN writes its exception message as the only CSV row.
    return { contentType: CSV_TYPE, headers, body: Readable.from([csvLine(['Could not generate header for CSV.'])]) };
  }
  // Large pages: a sorted query sorts the table once per page.
  const batch = 20_000;
  const plan = planQuery({ ...q, format: 'csv', limit: batch });
  const fixed = plan.rowsParams.slice(0, -2);
  const header = csvLine(csvHeader(q, config.dkanCsvHeaders));
  const end = q.limit === null ? Infinity : q.offset + q.limit;
  // Pages of rows, each read and formatted by its own statement on the executor: an open SQLite cursor would
  // hold a connection while the client reads, and a million-row download never sits in memory.
  const page = async (offset: number, run: (input: CsvPageInput) => Promise<CsvPage>) => {
    const limit = Math.min(batch, end - offset);
    const out = await run({ sql: plan.rowsSql, params: [...fixed, limit, offset], maxChars: PAGE_CHARS });
    return { ...out, more: out.cut || out.rows === limit };
  };
  const first =
    q.offset < end
      ? await page(q.offset, (input) => underBudget(pool.runTask(store, 'dkan:csvPage', input, config.queryTimeout)))
      : { text: '', rows: 0, more: false };
  async function* pages(): AsyncGenerator<string> {
    yield header + first.text;
    let { more } = first;
    for (let offset = q.offset + first.rows; more && offset < end; ) {
      const next = await page(offset, (input) =>
        laterPage(pool, store, input, config.queryTimeout * LATER_PAGE_BUDGET),
      );
      if (next.rows > 0) yield next.text;
      offset += next.rows;
      more = next.more && next.rows > 0;
    }
  }
  return { contentType: CSV_TYPE, headers, body: Readable.from(pages()) };
}

/**
 * A later page of a download, within `budgetMs` from its first try. Refused as busy (no query process free in
 * time, or one slow query too many), it tries again after a pause, as long as its time allows: its 200 and
 * the rows before it have gone, so a refusal can only cut the body, and the query has already proved it runs.
 * One that runs past its time fails as any other.
 */
async function laterPage(
  pool: QueryPool,
  store: FixtureStore,
  input: CsvPageInput,
  budgetMs: number,
): Promise<CsvPage> {
  const deadline = performance.now() + budgetMs;
  for (let pause = 50; ; pause = Math.min(pause * 2, 1_000)) {
    const left = deadline - performance.now();
    try {
      return await pool.runTask(store, 'dkan:csvPage', input, Math.max(1, Math.floor(left)));
    } catch (err) {
      if (!(err instanceof WorkBudgetError) || err.started || deadline - performance.now() <= pause) throw err;
      await sleep(pause);
    }
  }
}

/** Characters of CSV text one download page holds at most (past it, the page ends at the row that crossed it). */
const PAGE_CHARS = 4 * 1024 * 1024;

/** How many times --query-timeout a download's later pages may take each. */
const LATER_PAGE_BUDGET = 4;
