// The query as DKAN echoes it back in `query`.
import { asList, isPlainObject, phpEmpty } from './query-input.js';
import type { Resource } from './datasets.js';
import type { DkanQuery, QueryContext } from './query-model.js';

/** The query.json keys with defaults, in the order DKAN fills them in (DatastoreQuery::populateDefaults). */
export function withDefaults(echo: Record<string, unknown>, q: DkanQuery, download: boolean): void {
  const defaults: [string, unknown][] = [
    ['limit', q.limit],
    ['offset', 0],
    ['count', true],
    ['results', true],
    ['schema', true],
    ['keys', true],
    ['format', 'json'],
    ['rowIds', false],
  ];
  for (const [key, value] of defaults) {
    if (key === 'limit' && download) continue;
    if (!(key in echo)) echo[key] = value;
  }
}

/** Coerced echo values: what DKAN's type coercion made of the sent text. */
export function coerceEcho(sent: Record<string, unknown>, q: DkanQuery, conditions: unknown): Record<string, unknown> {
  const echo: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(sent)) {
    switch (key) {
      case 'limit':
        echo.limit = q.limit;
        break;
      case 'offset':
        echo.offset = q.offset;
        break;
      case 'count':
      case 'results':
      case 'schema':
      case 'keys':
      case 'rowIds':
        echo[key] = key === 'rowIds' ? q.rowIds : q[key];
        break;
      case 'format':
        echo.format = q.format;
        break;
      case 'conditions':
        if (conditions !== undefined) echo.conditions = listDeep(conditions);
        break;
      default:
        echo[key] = listDeep(raw);
    }
  }
  return echo;
}

/** PHP arrays with keys 0..n-1 encode as JSON lists; qs gives objects for sparse or long ones. */
function listDeep(v: unknown): unknown {
  const list = Array.isArray(v) ? v : asList(v);
  if (list) return list.map(listDeep);
  if (isPlainObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, listDeep(x)]));
  return v;
}

/** The echo: the query as sent (after type coercion), then resources, then defaults, then properties. */
export function buildEcho(
  sent: Record<string, unknown>,
  q: DkanQuery,
  conditions: unknown,
  ctx: QueryContext,
  primary: Resource,
): Record<string, unknown> {
  const echo = coerceEcho(sent, q, conditions);
  if (ctx.resource) echo.resources = [{ id: ctx.resource.distributionId, alias: 't' }];
  if (q.format === 'csv' && !ctx.download) echo.schema = true;
  if (ctx.download) echo.results = false;
  withDefaults(echo, q, ctx.download);
  if (!q.rowIds && phpEmpty(echo.properties)) echo.properties = primary.columns.map((c) => c.name);
  return echo;
}
