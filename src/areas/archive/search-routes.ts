// archive.org's search APIs (https://archive.org/help/aboutsearch.htm): the scraping API and advanced search.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Config } from '../../config.js';
import { inAreaTerms } from '../../platform/data/work-budget-error.js';
import { sendParts } from '../../platform/http/send-parts.js';
import { ArchiveError } from './errors.js';
import { QuerySyntaxError, parseQuery } from './search-query.js';
import { SCRAPE_MAX, SCRAPE_MIN, parseSorts, type SearchJob } from './search.js';

const JSON_TYPE = 'application/json; charset=utf-8';
const CLOSE = Buffer.from('}');
type RawQuery = Record<string, string | string[] | undefined>;

const first = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);
const list = (v: string | string[] | undefined): string[] =>
  (Array.isArray(v) ? v : v === undefined ? [] : [v]).flatMap((s) => s.split(','));

/** `name[]`, `name[0]`, `name[1]`... (PHP's array forms, which `ia` and browsers send), in index order. */
function phpArray(query: RawQuery, name: string): string[] {
  const keyed = Object.keys(query)
    .map((k) => ({ k, m: new RegExp(`^${name}(?:\\[(\\d*)\\])?$`).exec(k) }))
    .filter((x) => x.m)
    .sort((a, b) => Number(a.m![1] || 0) - Number(b.m![1] || 0));
  return keyed.flatMap(({ k }) => {
    const v = query[k];
    return Array.isArray(v) ? v : v === undefined ? [] : [v];
  });
}

function intParam(raw: string | undefined, name: string, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d{1,9}$/.test(raw.trim())) throw new QuerySyntaxError(`Invalid value for ${name}: ${raw}`);
  return Number(raw);
}

const ScrapeQuerySchema = Type.Object({
  q: Type.String({ description: 'The query, in the Lucene-like syntax of advanced search.' }),
  fields: Type.Optional(
    Type.String({ description: 'Metadata fields to return, comma delimited (identifier always).' }),
  ),
  sorts: Type.Optional(
    Type.String({ description: 'Fields to sort on, comma delimited ("year desc"); identifier, if given, last.' }),
  ),
  count: Type.Optional(Type.Integer({ minimum: SCRAPE_MIN, maximum: SCRAPE_MAX, default: SCRAPE_MIN })),
  cursor: Type.Optional(Type.String({ description: 'The cursor of the previous page.' })),
  total_only: Type.Optional(Type.Boolean({ description: 'true: only the number of results.' })),
});
const AnyObject = Type.Object({}, { additionalProperties: true });

const AdvancedQuerySchema = Type.Object({
  q: Type.String(),
  'fl[]': Type.Optional(Type.Array(Type.String(), { description: 'Fields to return (also fl[0], fl[1]...).' })),
  'sort[]': Type.Optional(Type.Array(Type.String(), { description: 'Sorts, "field asc|desc" (also sort[0]...).' })),
  rows: Type.Optional(Type.Integer({ minimum: 0, default: 50 })),
  page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
  output: Type.Optional(Type.String({ description: 'json' })),
});

// Advanced search pages sorted results only up to the 10,000th (archive.org/help/aboutsearch.htm).
const PAGED_LIMIT = 10_000;

/**
 * Runs a search on the query executor, under the work budget (--query-timeout): the JSON it answers, in the
 * parts it arrived in, or the archive's 400 for a request it cannot answer or a search that ran too long, and
 * a 503 to retry when no query process was free. `params`: advanced search's echo for Solr's responseHeader.
 */
async function search(
  app: FastifyInstance,
  request: FastifyRequest,
  config: Config,
  job: SearchJob,
  params?: Record<string, unknown>,
): Promise<Uint8Array[]> {
  const outcome = await inAreaTerms(
    app.queryPool.runTask(request.store, 'archive:search', job, config.queryTimeout),
    (budgetMs) =>
      new ArchiveError(400, `The search ran longer than ${budgetMs} ms and was stopped; narrow the query`, {}, params),
    (reason) => new ArchiveError(503, `The search service is busy: ${reason}. Try again.`, {}, params, true),
  );
  if (typeof outcome === 'string') throw new ArchiveError(400, outcome, {}, params);
  return outcome;
}

function scrapeHandler(app: FastifyInstance, config: Config) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const query = request.query as RawQuery;
    let job: SearchJob;
    try {
      const q = first(query.q) ?? '';
      const count = intParam(first(query.count), 'count', SCRAPE_MIN);
      if (count < SCRAPE_MIN || count > SCRAPE_MAX)
        throw new QuerySyntaxError(`count must be from ${SCRAPE_MIN} to ${SCRAPE_MAX}; ${count} is not`);
      const totalOnly = first(query.total_only) ?? 'false';
      if (totalOnly !== 'true' && totalOnly !== 'false') throw new QuerySyntaxError('total_only must be true or false');
      const params = {
        q,
        fields: list(query.fields)
          .map((f) => f.trim())
          .filter(Boolean),
        sorts: parseSorts(list(query.sorts)),
        count,
        cursor: first(query.cursor) || undefined,
        totalOnly: totalOnly === 'true',
      };
      // Read here, so that a malformed query is answered without a query process.
      parseQuery(q);
      job = { api: 'scrape', params };
    } catch (err) {
      if (!(err instanceof QuerySyntaxError)) throw err;
      throw new ArchiveError(400, err.message);
    }
    return sendParts(reply.type(JSON_TYPE), await search(app, request, config, job));
  };
}

function advancedHandler(app: FastifyInstance, config: Config) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const query = request.query as RawQuery;
    const q = first(query.q) ?? '';
    const fl = phpArray(query, 'fl')
      .flatMap((f) => f.split(','))
      .map((f) => f.trim())
      .filter(Boolean);
    const sorts = phpArray(query, 'sort');
    const params: Record<string, unknown> = { query: q, qin: q, fields: fl.join(','), wt: 'json' };
    let job: SearchJob;
    try {
      const rows = intParam(first(query.rows), 'rows', 50);
      const page = intParam(first(query.page), 'page', 1);
      if (page < 1) throw new QuerySyntaxError('page must be at least 1');
      const start = (page - 1) * rows;
      Object.assign(params, sorts.length ? { sort: sorts.join(', ') } : {}, { rows: String(rows), start });
      if (start + rows > PAGED_LIMIT && start > 0)
        throw new QuerySyntaxError(
          `Paged sorted results are limited to the first ${PAGED_LIMIT}; use the scraping API`,
        );
      const sortList = parseSorts(sorts);
      parseQuery(q);
      job = { api: 'advanced', q, sorts: sortList, fields: fl.length ? fl : null, start, rows };
    } catch (err) {
      if (!(err instanceof QuerySyntaxError)) throw err;
      throw new ArchiveError(400, err.message, {}, params);
    }
    const response = await search(app, request, config, job, params);
    const header = JSON.stringify({ status: 0, QTime: 0, params });
    return sendParts(reply.type(JSON_TYPE), response, Buffer.from(`{"responseHeader":${header},"response":`), CLOSE);
  };
}

export async function searchRoutes(app: FastifyInstance, config: Config): Promise<void> {
  const scrapeSchema = (operationId: string) => ({
    schema: {
      operationId,
      tags: ['archive'],
      summary: 'Scraping API: every matching item, in cursor-linked pages',
      description:
        'Answers `{items, count, cursor?, total}`; `cursor` is absent on the last page. `count` is from 100 (the default) to 10,000. ' +
        'Without `sorts` items come in identifier order. Dark items are not in the index.',
      querystring: ScrapeQuerySchema,
      response: { 200: AnyObject, 400: AnyObject },
    },
  });
  app.get('/services/search/v1/scrape', scrapeSchema('scrapeSearch'), scrapeHandler(app, config));
  app.post('/services/search/v1/scrape', scrapeSchema('scrapeSearchPost'), scrapeHandler(app, config));
  app.get(
    '/advancedsearch.php',
    {
      schema: {
        operationId: 'advancedSearch',
        tags: ['archive'],
        summary: 'Advanced search: one page of matching items (output=json)',
        description:
          "Answers Solr's `{responseHeader, response: {numFound, start, docs}}`. `rows` defaults to 50, `page` to 1; pages past the 10,000th result are refused.",
        querystring: AdvancedQuerySchema,
        response: { 200: AnyObject, 400: AnyObject },
      },
    },
    advancedHandler(app, config),
  );
}
