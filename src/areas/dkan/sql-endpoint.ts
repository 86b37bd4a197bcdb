// GET/POST /datastore/sql (DKAN's SqlEndpoint\WebServiceApi + DatastoreSqlEndpointService): the bracket SQL,
// parsed by sql-grammar.ts, becomes the same sent query object /datastore/query reads, so it is checked by
// readQuery and planned by planQuery like any other query; its text never reaches SQLite.
import type { Config } from '../../config.js';
import type { FixtureStore } from '../../platform/data/fixture-store.js';
import type { QueryPool } from '../../platform/data/query-pool.js';
import { resourceById, type Resource } from './datasets.js';
import { badRequest } from './errors.js';
import { LIMITS, readQuery, type DkanQuery } from './parse.js';
import { queryParts, type Answer } from './queries.js';
import type { SqlStatement } from './sql-grammar.js';

export interface SqlRequest {
  /** The `query` text; undefined when it was not sent (or not as text). */
  query: string | undefined;
  showDbColumns: boolean;
  /** GET: WebServiceApi::runQueryGet stripslashes() the text; POST does not. */
  get: boolean;
}

/** PHP's stripslashes: a backslash escapes the character after it. */
const stripslashes = (s: string): string => s.replace(/\\(.?)/gs, '$1');

/** DatastoreSqlEndpointService: the sent query object DKAN's Query would hold for a statement. */
export function sentQuery(statement: SqlStatement, showDbColumns: boolean, config: Config): Record<string, unknown> {
  const sent: Record<string, unknown> = { count: false, schema: false, keys: true, results: true };
  // setQueryObjectWhere: `if ($value)` skips a value PHP finds false, "0".
  const conditions = statement.where
    .filter((c) => c.value !== '0')
    .map((c) => ({ property: c.property, value: c.value, operator: '=' }));
  if (conditions.length > 0) sent.conditions = conditions;
  // Query::count(): the full count of the matching rows, whatever LIMIT says.
  if (statement.select === 'count') return { ...sent, count: true, results: false };
  if (Array.isArray(statement.select)) sent.properties = statement.select;
  // The dataset table's SELECT * holds record_number; the service drops it unless show_db_columns.
  else if (showDbColumns) sent.rowIds = true;
  if (statement.orderBy) {
    const order = statement.orderBy.desc ? 'desc' : 'asc';
    sent.sorts = statement.orderBy.properties.map((property) => ({ property, order }));
  }
  // setQueryObjectLimit caps LIMIT at the site's rows_limit rather than refusing it; without LIMIT the
  // published docs' "500 record limit" applies (mockyard: --dkan-max-limit, default 500 rows).
  const max = config.dkanMaxLimit;
  sent.limit = statement.limit ? Math.min(statement.limit.limit, max) : Math.min(500, max);
  if (statement.limit?.offset) sent.offset = statement.limit.offset;
  return sent;
}

/** The row keys DKAN writes: each column's description (its CSV header) unless show_db_columns. */
function describeKeys(q: DkanQuery): DkanQuery {
  const seen = new Map<string, number>();
  const outputs = q.outputs.map((o, i) => {
    const col = o.expr.kind === 'column' ? o.expr.ref.column : undefined;
    const key = col?.description ? col.description : o.key;
    seen.set(key, i);
    return { ...o, key };
  });
  // PHP array keys: a later column with the same description overwrites the earlier one.
  return { ...q, outputs: outputs.filter((o, i) => seen.get(o.key) === i) };
}

async function parse(request: SqlRequest): Promise<SqlStatement> {
  if (request.query === undefined || request.query === '' || request.query === '0')
    throw badRequest(
      request.get ? "Missing 'query' query parameter" : "Missing 'query' property in the request's body.",
    );
  if (request.query.length > LIMITS.sqlLength)
    throw badRequest(
      `The query is ${request.query.length} characters long; mockyard reads at most ${LIMITS.sqlLength}.`,
    );
  // The grammar, and chevrotain with it, is loaded by the first SQL query, not at start-up.
  const { parseBracketSql } = await import('./sql-grammar.js');
  const statement = parseBracketSql(request.get ? stripslashes(request.query) : request.query);
  if (!statement) throw badRequest('Invalid query string.');
  return statement;
}

function resourceOf(store: FixtureStore, table: string): Resource {
  const resource = resourceById(store, table);
  if (!resource) throw badRequest(`Could not find identifier and version for ${table}`);
  return resource;
}

/** The endpoint's answer: a JSON array of row objects, or [{"expression": "<count>"}] for COUNT(*). */
export async function runSql(
  pool: QueryPool,
  store: FixtureStore,
  config: Config,
  request: SqlRequest,
): Promise<Answer> {
  const statement = await parse(request);
  const resource = resourceOf(store, statement.table);
  const sent = sentQuery(statement, request.showDbColumns, config);
  const checked = readQuery(sent, {
    resource,
    byId: (id) => resourceById(store, id),
    maxLimit: config.dkanMaxLimit,
    download: false,
  });
  const q = request.showDbColumns ? checked : describeKeys(checked);
  return queryParts(pool, store, config, q, (parts) =>
    Buffer.from(
      statement.select === 'count'
        ? JSON.stringify([{ expression: String(parts.count ?? 0) }])
        : (parts.results ?? '[]'),
    ),
  );
}
