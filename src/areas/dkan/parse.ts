// A sent DKAN query (GET query string as PHP parses it, or a POST JSON body) -> the checked query model.
// Mirrors DKAN's order: the controller's own checks, then query.json validation (schema errors), then the
// storage layer's errors ("Unsafe property name", "Invalid sort.", "Column not found.") and the echo.
// Each part of the query is read by its own module (query-*.ts); this one keeps DKAN's order between them.
import { readConditions, conditionsInput } from './query-conditions.js';
import { buildEcho, coerceEcho, withDefaults } from './query-echo.js';
import { hasAggregate } from './query-expressions.js';
import { flag, integer, last } from './query-input.js';
import type { DkanQuery, QueryContext } from './query-model.js';
import { checkAggregateMix, checkGrouped, checkPayload, readProperties, readPropertyList } from './query-properties.js';
import { Reader } from './query-reader.js';
import { groupTarget, readGroupNames, readSortKeys, sortTarget } from './query-sorts.js';
import { readJoins, readResources } from './query-sources.js';
import { badRequest, schemaError } from './errors.js';

export * from './query-model.js';
export { parseBody, parseQueryString } from './query-input.js';

/** The checked query for a sent query object (GET parameters or POST body). */
export function readQuery(sent: Record<string, unknown>, ctx: QueryContext): DkanQuery {
  const propertyList = readPropertyList(sent.properties);
  checkPayload(sent, ctx, propertyList);

  const r = new Reader();
  const format = last(sent.format) ?? 'json';
  if (format !== 'json' && format !== 'csv')
    throw schemaError('enum', 'format', "The attribute must be one of the following values: 'csv', 'json'.");
  const rowIds = flag(sent.rowIds, 'rowIds', false);
  const limit = integer(
    sent.limit,
    'limit',
    ctx.download ? null : Math.min(500, ctx.maxLimit),
    1,
    ctx.download ? Number.MAX_SAFE_INTEGER : ctx.maxLimit,
  );
  const q: DkanQuery = {
    sources: r.sources,
    joins: [],
    outputs: [],
    rowIds,
    where: [],
    groupBy: [],
    sorts: [],
    limit,
    offset: integer(sent.offset, 'offset', 0, 0, Number.MAX_SAFE_INTEGER)!,
    count: flag(sent.count, 'count', true),
    // Both buildDatastoreQuery()s overwrite a flag before validation: the download routes never send
    // `results` (QueryDownloadController.php 68), the CSV format always has a schema (AbstractQueryController.php 229-232).
    results: ctx.download ? false : flag(sent.results, 'results', true),
    schema: format === 'csv' && !ctx.download ? true : flag(sent.schema, 'schema', true),
    keys: flag(sent.keys, 'keys', true),
    format,
    aggregate: false,
    echo: {},
  };

  readResources(r, sent, ctx);
  if (r.sources.length === 0) {
    // DKAN's Query service answers an empty result when no resource is named.
    q.echo = { ...coerceEcho(sent, q, undefined) };
    withDefaults(q.echo, q, ctx.download);
    return q;
  }

  readJoins(r, q, sent);
  const explicit = readProperties(r, q, sent.properties, propertyList);
  q.aggregate = q.outputs.some((o) => hasAggregate(o.expr));

  const conditions = conditionsInput(sent.conditions);
  if (conditions !== undefined && conditions !== '') q.where = readConditions(r, conditions, 'conditions', 0);

  const sortKeys = readSortKeys(r, sent);
  const groupNames = readGroupNames(sent);

  // Storage-level checks, in DKAN's order: QueryFactory (groupings), SelectFactory (properties, sorts), MySQL.
  if (groupNames.length > 0) checkGrouped(r, q, groupNames, propertyList, explicit);
  if (r.pending) throw r.pending;
  for (const s of sortKeys) {
    if (s.order === undefined) throw badRequest('Invalid sort.');
  }
  checkAggregateMix(q, groupNames);
  q.groupBy = groupNames.map((name) => groupTarget(r, q, name));
  q.sorts = sortKeys.map((s) => ({ target: sortTarget(r, q, s.alias, s.property), desc: s.order === 'desc' }));
  if (r.pending) throw r.pending;

  q.echo = buildEcho(sent, q, conditions, ctx, r.primary.resource);
  return q;
}
