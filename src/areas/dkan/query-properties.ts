// `properties`: the columns and expressions a query answers with, and the checks that tie them to groupings.
import { RECORD_NUMBER } from './datasets.js';
import { badRequest, schemaError } from './errors.js';
import { exprHasColumn, hasAggregate, readExpression } from './query-expressions.js';
import { asList, checkAlias, checkPattern, isPlainObject, last, phpEmpty } from './query-input.js';
import { LIMITS, type DkanQuery, type QueryContext } from './query-model.js';
import type { Reader } from './query-reader.js';

/** `properties` as a list: a list, or comma-separated names in a query string. */
export function readPropertyList(rawProperties: unknown): unknown[] | undefined {
  return (
    asList(rawProperties) ??
    (typeof rawProperties === 'string' && rawProperties !== ''
      ? rawProperties.split(',').map((s) => s.trim())
      : undefined)
  );
}

/** AbstractQueryController::additionalPayloadValidation, before query.json validation. */
export function checkPayload(
  sent: Record<string, unknown>,
  ctx: QueryContext,
  propertyList: unknown[] | undefined,
): void {
  const rawProperties = sent.properties;
  for (const p of propertyList ?? []) {
    if (p === RECORD_NUMBER.name || (isPlainObject(p) && last(p.property) === RECORD_NUMBER.name)) {
      throw badRequest(
        'The record_number property is for internal use and cannot be requested directly. Set rowIds to true and remove properties from your query to see the full table with row IDs.',
      );
    }
  }
  // The payload is type-coerced first, so rowIds=false is empty here.
  if (!phpEmpty(rawProperties) && !phpEmpty(last(sent.rowIds)) && last(sent.rowIds) !== 'false') {
    throw badRequest('The rowIds property cannot be set to true if you are requesting specific properties.');
  }
  if (ctx.resource && (!phpEmpty(sent.resources) || !phpEmpty(sent.joins))) {
    throw badRequest(
      'Joins are not available and resources should not be explicitly passed when using the resource query endpoint. Try /api/1/datastore/query.',
    );
  }
}

/** Drupal's Select::addField naming: the alias or field; if taken, <table>_<field>; then a counter. */
function uniqueKey(taken: Set<string>, wanted: string, tableAlias: string | null, field: string): string {
  // Expressions (addExpression) skip the <table>_<field> step.
  let key = taken.has(wanted) && tableAlias !== null ? `${tableAlias}_${field}` : wanted;
  const base = key;
  for (let n = 2; taken.has(key); n++) key = `${base}_${n}`;
  taken.add(key);
  return key;
}

/** Properties: strings, {resource, property, alias} or {expression, alias}. Returns whether any were sent. */
export function readProperties(
  r: Reader,
  q: DkanQuery,
  rawProperties: unknown,
  propertyList: unknown[] | undefined,
): boolean {
  const taken = new Set<string>();
  if (q.rowIds) {
    q.outputs.push({
      key: RECORD_NUMBER.name,
      expr: { kind: 'column', ref: { source: r.primary, column: RECORD_NUMBER } },
      headerName: RECORD_NUMBER.name,
    });
    taken.add(RECORD_NUMBER.name);
  }
  let explicit = false;
  if (!phpEmpty(rawProperties)) {
    if (!propertyList) throw schemaError('type', 'properties', 'The attribute must be an array of properties.');
    if (propertyList.length > LIMITS.properties)
      throw schemaError('maxItems', 'properties', `At most ${LIMITS.properties} properties are allowed.`);
    explicit = true;
    propertyList.forEach((p, i) => {
      const pointer = `properties/${i}`;
      if (typeof p === 'string') {
        const ref = r.stringProperty(p);
        q.outputs.push({ key: uniqueKey(taken, p, r.primary.alias, p), expr: { kind: 'column', ref }, headerName: p });
      } else if (isPlainObject(p) && p.expression !== undefined) {
        if (p.alias === undefined)
          throw schemaError('required', pointer, 'The required properties (alias) are missing.');
        const alias = checkAlias(last(p.alias), `${pointer}/alias`);
        const expr = readExpression(r, p.expression, `${pointer}/expression`, 1);
        q.outputs.push({ key: uniqueKey(taken, alias, null, alias), expr, headerName: alias });
      } else if (isPlainObject(p) && p.property !== undefined && p.resource !== undefined) {
        const resource = r.resourceAlias(last(p.resource), `${pointer}/resource`);
        const property = checkPattern(last(p.property), `${pointer}/property`);
        const ref = r.column(resource, property, false);
        const alias = p.alias === undefined ? undefined : checkAlias(last(p.alias), `${pointer}/alias`);
        q.outputs.push({
          key: uniqueKey(taken, alias ?? property, resource ?? r.primary.alias, property),
          expr: { kind: 'column', ref },
          headerName: property,
        });
      } else {
        throw schemaError(
          'anyOf',
          pointer,
          'A property must be a column name, {resource, property, alias} or {expression, alias}.',
        );
      }
    });
  } else {
    // Query::getProperties: all columns of the primary resource, in table order.
    for (const column of r.primary.resource.columns) {
      q.outputs.push({
        key: uniqueKey(taken, column.name, r.primary.alias, column.name),
        expr: { kind: 'column', ref: { source: r.primary, column } },
        headerName: column.name,
      });
    }
  }
  return explicit;
}

/** QueryFactory's groupings check: every plain property must be grouped. */
export function checkGrouped(
  r: Reader,
  q: DkanQuery,
  groupNames: string[],
  propertyList: unknown[] | undefined,
  explicit: boolean,
): void {
  const rowIds = q.rowIds;
  if (groupNames.length > 0) {
    // Query.php fills `properties` with every column when none are given, so those count as un-grouped too.
    const propNames = explicit
      ? propertyList!.flatMap((p) =>
          typeof p === 'string'
            ? [p]
            : isPlainObject(p) && p.expression === undefined && p.property !== undefined
              ? [String(last(p.property))]
              : [],
        )
      : rowIds
        ? []
        : r.primary.resource.columns.map((c) => c.name);
    const ungrouped = propNames.filter((p) => !groupNames.includes(p));
    if (ungrouped.length > 0)
      throw badRequest(`Un-grouped properties found in aggregate query: ${ungrouped.join(', ')}`);
  }
}

export function checkAggregateMix(q: DkanQuery, groupNames: string[]): void {
  // MySQL with ONLY_FULL_GROUP_BY: plain columns beside aggregates need a GROUP BY (AbstractDatabaseTable).
  if (
    q.aggregate &&
    groupNames.length === 0 &&
    q.outputs.some((o) => !hasAggregate(o.expr) && o.expr.kind !== 'number' && exprHasColumn(o.expr))
  ) {
    throw badRequest(
      'You may not mix simple properties and aggregation expressions in a single query. If one of your properties includes an expression with a sum, count, avg, min or max operator, remove other properties from your query and try again.',
    );
  }
}
