// Answers a checked query: from the answer cache, or whole on the query executor (answer.ts runs there).
import { Readable } from 'node:stream';
import { LRUCache } from 'lru-cache';
import type { Config } from '../../config.js';
import type { FixtureStore } from '../../platform/data/fixture-store.js';
import { WorkBudgetError, type QueryPool } from '../../platform/data/query-pool.js';
import type { Step } from '../../platform/data/steps.js';
import { CSV_HEADERS, CSV_TYPE, emptyAnswer, type AnswerInput } from './answer.js';
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

/** Whole answers of one store by URL and by the echoed query, kept while it lives. */
function responsesOf(store: FixtureStore, config: Config): LRUCache<string, Answer> | null {
  return store.memo('dkan:responses', () =>
    config.dkanCacheSize > 0
      ? new LRUCache<string, Answer>({
          max: config.dkanCacheSize,
          maxSize: 32 * 1024 * 1024,
          sizeCalculation: (a) => a.body.length + 64,
        })
      : null,
  );
}

/** A stored answer for exactly this request URL, before any parsing. */
export function cachedAnswer(store: FixtureStore, config: Config, url: string): Answer | undefined {
  return responsesOf(store, config)?.get(`u:${url}`);
}

/** The executor's budget errors in DKAN's own shapes. */
async function underBudget<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof WorkBudgetError) throw err.started ? queryTooLong(err.budgetMs) : queryBusy(err.budgetMs);
    throw err;
  }
}

/** What the route read: the query as sent (parsed) and the distribution its path names. */
export interface Sent {
  sent: Record<string, unknown>;
  resourceId: string | null;
}

/**
 * The answer to a checked query. `url` (GET only) also keys the cache, so a repeated request skips parsing;
 * the echo is the query as sent with the resources filled in, so it identifies the answer. The query is
 * ranked, planned and run on the executor, under the work budget, never on the event loop.
 */
export async function runQuery(
  pool: QueryPool,
  store: FixtureStore,
  config: Config,
  q: DkanQuery,
  from: Sent,
  url: string | null,
): Promise<Answer> {
  const responses = responsesOf(store, config);
  const echo = JSON.stringify(q.echo);
  const key = `q:${echo}`;
  let answer = responses?.get(key);
  if (!answer) {
    const input: AnswerInput = { ...from, maxLimit: config.dkanMaxLimit, csvHeaders: config.dkanCsvHeaders };
    const out =
      q.sources.length === 0
        ? emptyAnswer(q, echo)
        : await underBudget(pool.runTask(store, 'dkan:answer', input, config.queryTimeout));
    answer = {
      contentType: out.contentType,
      body: Buffer.from(out.body),
      ...(out.headers ? { headers: out.headers } : {}),
    };
    responses?.set(key, answer);
  }
  if (url !== null) responses?.set(`u:${url}`, answer);
  return answer;
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
  const fixed = plan.rowsParams.slice(0, -2);
  const header = csvLine(csvHeader(q, config.dkanCsvHeaders));
  const end = q.limit === null ? Infinity : q.offset + q.limit;
  // Pages of rows, each read by its own statement on the executor: an open SQLite cursor would hold a
  // connection while the client reads, and a million-row download never sits in memory.
  async function* pages(): AsyncGenerator<string> {
    yield header;
    for (let offset = q.offset; offset < end; offset += batch) {
      const step: Step = { op: 'rawAll', sql: plan.rowsSql, params: [...fixed, Math.min(batch, end - offset), offset] };
      const [rows] = (await underBudget(pool.run(store, [step], config.queryTimeout))) as [unknown[][]];
      if (rows.length > 0) yield rows.map(csvLine).join('');
      if (rows.length < batch) return;
    }
  }
  return { contentType: CSV_TYPE, headers, body: Readable.from(pages()) };
}
