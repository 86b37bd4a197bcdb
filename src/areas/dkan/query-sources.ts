// `resources` and `joins`: which resources a query reads and how they are joined.
import type { Resource } from './datasets.js';
import { badRequest, columnNotFound, distributionNotFound, schemaError } from './errors.js';
import { asList, checkPattern, isPlainObject, jsonItems, last } from './query-input.js';
import { LIMITS, OPERATORS, type DkanQuery, type QueryContext } from './query-model.js';
import type { Reader } from './query-reader.js';

/** DKAN's SelectFactory::safeJoinOperator, as far as query.json's operator enum lets values through. */
const JOIN_OPERATORS = ['=', '<>', '<', '<=', '>', '>='];

/** Resources: the path's one (alias t), or the `resources` list of /datastore/query. */
export function readResources(r: Reader, sent: Record<string, unknown>, ctx: QueryContext): void {
  if (ctx.resource) {
    r.addSource('t', ctx.resource);
  } else if (sent.resources !== undefined) {
    // As for sorts: Swagger UI sends each {id, alias} as JSON text.
    const given = typeof sent.resources === 'string' ? [sent.resources] : asList(sent.resources);
    const list = jsonItems(given, 'resources', '{id, alias}');
    if (!list) throw schemaError('type', 'resources', 'The attribute must be an array of {id, alias}.');
    if (list.length > LIMITS.resources)
      throw schemaError(
        'maxItems',
        'resources',
        `At most ${LIMITS.resources} resources can be queried (joined) at once.`,
      );
    const found: [string, Resource | undefined, string][] = list.map((item, i) => {
      if (!isPlainObject(item))
        throw schemaError('type', `resources/${i}`, 'The attribute must be an object {id, alias}.');
      const id = last(item.id);
      const alias = last(item.alias);
      if (typeof id !== 'string')
        throw schemaError(
          id === undefined ? 'required' : 'type',
          `resources/${i}/id`,
          'The attribute must be a string: the distribution id.',
        );
      if (typeof alias !== 'string' || alias === '')
        throw schemaError(
          alias === undefined ? 'required' : 'type',
          `resources/${i}/alias`,
          'The attribute must be a string: the alias used elsewhere in the query.',
        );
      return [id, ctx.byId(id), alias];
    });
    for (const [id, resource, alias] of found) {
      if (!resource) throw distributionNotFound(id);
      r.addSource(alias, resource);
    }
  }
}

/** Joins: one per resource after the first (QueryFactory::populateQueryJoins). */
export function readJoins(r: Reader, q: DkanQuery, sent: Record<string, unknown>): void {
  const joins = sent.joins === undefined || sent.joins === '' ? [] : asList(sent.joins);
  if (!joins) throw schemaError('type', 'joins', 'The attribute must be an array of {resource, condition}.');
  if (r.sources.length > 1 && joins.length < r.sources.length - 1) throw badRequest('Too many resources specified.');
  if (joins.length > LIMITS.resources - 1)
    throw schemaError('maxItems', 'joins', `At most ${LIMITS.resources - 1} joins are allowed.`);
  joins.forEach((join, i) => {
    const pointer = `joins/${i}`;
    if (!isPlainObject(join))
      throw schemaError('type', pointer, 'The attribute must be an object {resource, condition}.');
    if (join.resource === undefined || join.condition === undefined)
      throw schemaError('required', pointer, 'The required properties (resource, condition) are missing.');
    const alias = r.resourceAlias(last(join.resource), `${pointer}/resource`)!;
    const cond = join.condition;
    if (!isPlainObject(cond))
      throw schemaError('type', `${pointer}/condition`, 'The attribute must be a condition object.');
    const operator = last(cond.operator) ?? '=';
    if (!(OPERATORS as readonly unknown[]).includes(operator)) {
      throw schemaError(
        'enum',
        `${pointer}/condition/operator`,
        `The attribute must be one of the following values: ${OPERATORS.map((o) => `'${o}'`).join(', ')}.`,
      );
    }
    if (cond.property === undefined || cond.value === undefined)
      throw schemaError('required', `${pointer}/condition`, 'The required properties (property, value) are missing.');
    const leftAlias = r.resourceAlias(last(cond.resource), `${pointer}/condition/resource`);
    const left = r.column(leftAlias, checkPattern(last(cond.property), `${pointer}/condition/property`));
    const v = cond.value;
    if (!isPlainObject(v) || typeof last(v.resource) !== 'string')
      throw badRequest('Invalid join condition; collection must be specified.');
    const right = r.column(
      last(v.resource) as string,
      checkPattern(last(v.property), `${pointer}/condition/value/property`),
    );
    if (!JOIN_OPERATORS.includes(operator as string)) throw badRequest(`Invalid join operator: ${String(operator)}`);
    const source = r.sources.find((s, k) => k > 0 && s.alias === alias);
    if (!source) {
      r.defer(columnNotFound());
      return;
    }
    q.joins.push({ source, left, operator: operator as string, right });
  });
  if (r.sources.length > 1 && new Set(q.joins.map((j) => j.source)).size < r.sources.length - 1 && !r.pending) {
    throw badRequest('Too many resources specified.');
  }
  const joinedRows = q.joins.reduce((n, j) => n * j.source.resource.rows, r.primary.resource.rows);
  if (q.joins.length > 0 && joinedRows > LIMITS.joinRows) {
    throw schemaError(
      'maximum',
      'joins',
      `Joined resources may hold at most ${LIMITS.joinRows} row combinations (the product of their row counts); these hold ${joinedRows}.`,
    );
  }
}
