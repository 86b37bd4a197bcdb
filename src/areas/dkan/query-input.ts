// How DKAN reads sent values: PHP's query-string and JSON decoding, query.json's coercion, and name checks.
import qs from 'qs';
import { jsonDepthOver } from '../../platform/http/json-body.js';
import { schemaError } from './errors.js';
import { LIMITS, type Scalar } from './query-model.js';

const QS_OPTIONS = { depth: 4 * LIMITS.groupDepth + 8, arrayLimit: 1000, parameterLimit: 5000 } as const;

export function parseQueryString(raw: string): Record<string, unknown> {
  return qs.parse(raw, QS_OPTIONS) as Record<string, unknown>;
}

const PHP_JSON_DEPTH = 512;

/** A POST body as DKAN reads it (`$request->getContent()`, json_decode). */
export function parseBody(body: unknown): Record<string, unknown> {
  let value = body;
  if (Buffer.isBuffer(value)) value = value.toString('utf8');
  if (typeof value === 'string') {
    if (value.trim() === '') return {};
    // PHP's json_decode stops at 512 levels (its default $depth) with "Maximum stack depth exceeded".
    if (jsonDepthOver(value, PHP_JSON_DEPTH))
      throw schemaError(
        'type',
        '',
        'The request body must be a JSON object (a datastore query); it does not parse: Maximum stack depth exceeded.',
      );
    try {
      value = JSON.parse(value);
    } catch (err) {
      throw schemaError(
        'type',
        '',
        `The request body must be a JSON object (a datastore query); it does not parse: ${(err as Error).message}.`,
      );
    }
  }
  if (value === undefined || value === null) return {};
  if (!isPlainObject(value))
    throw schemaError('type', '', 'The request body must be a JSON object (a datastore query).');
  // query.json names 14 properties; DKAN echoes unknown ones, but a body of thousands is refused before
  // anything walks them (the echo, the journal).
  if (Object.keys(value).length > LIMITS.bodyKeys)
    throw schemaError('maxProperties', '', `A query object may hold at most ${LIMITS.bodyKeys} properties.`);
  return value;
}

/** PHP keeps the last of repeated plain keys. */
export const last = (v: unknown): unknown => (Array.isArray(v) ? v[v.length - 1] : v);

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** qs turns large or sparse indexes into objects keyed "12"; DKAN sees a list either way. */
export function asList(v: unknown): unknown[] | undefined {
  if (Array.isArray(v)) return v;
  if (isPlainObject(v)) {
    const keys = Object.keys(v);
    if (keys.length > 0 && keys.every((k) => /^\d+$/.test(k)))
      return keys.sort((a, b) => Number(a) - Number(b)).map((k) => v[k]);
  }
  return undefined;
}

/** PHP's empty(): what DKAN's controller checks before validation. */
export const phpEmpty = (v: unknown): boolean =>
  v === undefined ||
  v === null ||
  v === false ||
  v === 0 ||
  v === '' ||
  v === '0' ||
  (Array.isArray(v) && v.length === 0) ||
  (isPlainObject(v) && Object.keys(v).length === 0);

// query.json coercion (justinrainbow/json-schema with coerce): "500" -> 500, "true"/"false" -> booleans; nothing else.
export function integer(v: unknown, name: string, fallback: number | null, min: number, max: number): number | null {
  const raw = last(v);
  if (raw === undefined || raw === '') return fallback;
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^-?\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n))
    throw schemaError('type', name, `The attribute must be an integer, "${String(raw)}" given.`);
  if (n < min) throw schemaError('minimum', name, `The attribute must be greater than or equal to ${min}.`);
  if (n > max) throw schemaError('maximum', name, `The attribute must be less than or equal to ${max}.`);
  return n;
}

export function flag(v: unknown, name: string, fallback: boolean): boolean {
  const raw = last(v);
  if (raw === undefined) return fallback;
  if (raw === true || raw === 'true') return true;
  if (raw === false || raw === 'false') return false;
  throw schemaError('type', name, `The attribute must be a boolean (true or false), "${String(raw)}" given.`);
}

export const isScalar = (v: unknown): v is Scalar =>
  typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));

/** query.json's `property` definition: no table prefix. */
export function checkPattern(name: unknown, pointer: string): string {
  if (typeof name !== 'string') throw schemaError('type', pointer, 'The attribute must be a string naming a column.');
  if (!/^[^.]+$/.test(name))
    throw schemaError('pattern', pointer, 'The attribute must match the regex pattern "^[^.]+$".');
  return name;
}

/** Drupal's escapeAlias: an alias keeps only [A-Za-z0-9_.]. */
const escapeAlias = (alias: string): string => alias.replace(/[^A-Za-z0-9_.]+/g, '');

export function checkAlias(alias: unknown, pointer: string): string {
  if (typeof alias !== 'string') throw schemaError('type', pointer, 'The attribute must be a string.');
  const escaped = escapeAlias(alias);
  if (escaped === '' || escaped.length > LIMITS.aliasLength) {
    throw schemaError(
      'pattern',
      pointer,
      `An alias needs 1 to ${LIMITS.aliasLength} of the characters A-Z, a-z, 0-9, _ and . (others are removed).`,
    );
  }
  return escaped;
}

/**
 * OpenAPI clients (Swagger UI among them) send an array of objects in a query as one JSON text per item,
 * `sorts={"property":"state","order":"desc"}`; the whole array as JSON text works too, as for conditions.
 * Items that are objects already (DKAN's bracket form) pass through.
 */
export function jsonItems(
  list: unknown[] | undefined,
  name = 'sorts',
  shape = '{property, order}',
): unknown[] | undefined {
  if (!list) return undefined;
  return list.flatMap((item, i) => {
    if (typeof item !== 'string') return [item];
    const text = item.trim();
    if (!text.startsWith('{') && !text.startsWith('[')) return [item];
    try {
      const parsed: unknown = JSON.parse(text);
      return Array.isArray(parsed) ? parsed : [parsed];
    } catch (err) {
      throw schemaError(
        'type',
        `${name}/${i}`,
        `The attribute must be an object ${shape}; the JSON text does not parse (${(err as Error).message}).`,
      );
    }
  });
}
