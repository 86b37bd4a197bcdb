// Turns the query string into a checked DefinitionFilter, enforcing the operation's rules as 400s.
import { badRequest } from './errors.js';
import { BOOLEAN_PARAMS, QuerySchema, type Query } from './schemas.js';
import { timestampFromBase64 } from '../../../fixtures/agco/timestamp.js';

export const DEFAULT_LIMIT = 10;
export const MAX_STRING_IDS = 40;
const MAX_ROWVERSION = 2n ** 63n - 1n;

/** How a text parameter is matched: a GLOB pattern over lower-cased text (wildcards) or an FTS5 query (useFullText). */
export type TextMatch = { kind: 'glob'; pattern: string } | { kind: 'fts'; query: string } | { kind: 'all' };

export interface DefinitionFilter {
  limit: number;
  stringIds: string[] | null;
  description: TextMatch | null;
  stringText: TextMatch | null;
  /** Row versions above 2^63-1 cannot occur; clamping keeps the comparison in SQLite's integer range. */
  modifiedAfter: bigint | null;
  includeTranslations: boolean;
  languageIds: number[] | null;
  includeDeletedLanguages: boolean;
  matchingTranslationsOnly: boolean;
}

/**
 * `*` at the start and/or end is a wildcard; anything else, including `%`, `_`, `?`, `[` and a `*` in the
 * middle, is literal. Without wildcards the whole text must match. Matching is case-insensitive (as SQL
 * Server's default collation): the pattern is lower-cased and compared with the lower-cased columns.
 */
export function globPattern(text: string): string {
  const leading = text.startsWith('*');
  let body = leading ? text.slice(1) : text;
  const trailing = body.endsWith('*');
  if (trailing) body = body.slice(0, -1);
  const escaped = body.toLowerCase().replace(/[*?[]/g, (c) => `[${c}]`);
  return `${leading ? '*' : ''}${escaped}${trailing ? '*' : ''}`;
}

/**
 * Each word becomes a quoted FTS5 string (so quotes, operators and brackets in the user's text are plain
 * text and never a syntax error); a word ending in `*` is a prefix search. All words must match.
 */
export function ftsQuery(text: string): string | null {
  const terms: string[] = [];
  for (const word of text.split(/\s+/)) {
    const prefix = word.endsWith('*');
    const bare = word.replace(/^\*+|\*+$/g, '');
    if (bare === '') continue;
    terms.push(`"${bare.replace(/"/g, '""')}"${prefix ? '*' : ''}`);
  }
  return terms.length > 0 ? terms.join(' ') : null;
}

function textMatch(text: string, fullText: boolean): TextMatch {
  if (!fullText) return { kind: 'glob', pattern: globPattern(text) };
  const query = ftsQuery(text);
  return query === null ? { kind: 'all' } : { kind: 'fts', query };
}

const given = (value: string | undefined): value is string => value !== undefined && value.trim() !== '';

function commaList(raw: string): string[] {
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

const MAX_LIMIT = 2147483647;
const PARAM_NAMES = new Map(Object.keys(QuerySchema.properties).map((name) => [name.toLowerCase(), name]));

/**
 * The query string bound as ASP.NET Web API binds it to the action's parameters: names ignore case,
 * a repeated scalar takes its first value, `True`/`FALSE` are booleans, `limit` is an Int32, and
 * unknown names are ignored.
 */
export function bindQuery(raw: Record<string, string | string[] | undefined>): Query {
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw)) {
    const name = PARAM_NAMES.get(key.toLowerCase());
    if (name === undefined || value === undefined || name in values) continue;
    values[name] = Array.isArray(value) ? (value[0] ?? '') : value;
  }
  const q: Query = {};
  for (const [name, value] of Object.entries(values)) {
    if ((BOOLEAN_PARAMS as readonly string[]).includes(name)) {
      const v = value.trim().toLowerCase();
      if (v !== 'true' && v !== 'false')
        throw badRequest(`The value '${value}' is not valid for ${name}; use true or false.`);
      (q as Record<string, boolean>)[name] = v === 'true';
    } else if (name === 'limit') {
      const n = Number(value.trim());
      if (!/^\s*\+?\d+\s*$/.test(value) || n < 1 || n > MAX_LIMIT) {
        throw badRequest(
          `limit must be a whole number of at least 1; "${value}" is not.`,
          `limit must be an integer from 1 to ${MAX_LIMIT}.`,
        );
      }
      q.limit = n;
    } else {
      (q as Record<string, string>)[name] = value;
    }
  }
  return q;
}

/** `stringIds`: a deduplicated id list (case-insensitive), never combined with the other filters. */
function readStringIds(q: Query, useFullText: boolean): string[] | null {
  if (!given(q.stringIds)) return null;
  const ids = commaList(q.stringIds);
  if (ids.length > MAX_STRING_IDS) {
    throw badRequest(`stringIds accepts at most ${MAX_STRING_IDS} ids; ${ids.length} were given.`);
  }
  const combined = [
    given(q.modifiedAfterTimestamp) && 'modifiedAfterTimestamp',
    given(q.stringText) && 'stringText',
    given(q.descriptionText) && 'descriptionText',
    useFullText && 'useFullText',
  ].filter((x): x is string => typeof x === 'string');
  if (combined.length > 0) {
    throw badRequest(
      `stringIds cannot be combined with modifiedAfterTimestamp, stringText, descriptionText or useFullText (got ${combined.join(', ')}).`,
    );
  }
  const seen = new Set<string>();
  if (ids.length === 0) return null;
  return ids.filter((id) => {
    const key = id.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Flags count as "used" only when they differ from their default, so generated clients that send
 * every parameter with its default value (useFullText=false, matchingTranslationsOnly=true) still work.
 */
export function parseFilter(q: Query): DefinitionFilter {
  const includeTranslations = q.includeTranslations === true;
  const useFullText = q.useFullText === true;
  const includeDeletedLanguages = q.includeDeletedLanguages === true;
  const allTranslations = q.matchingTranslationsOnly === false;

  const stringIds = readStringIds(q, useFullText);

  if (!includeTranslations) {
    const needs = [
      includeDeletedLanguages && 'includeDeletedLanguages',
      given(q.languageIds) && 'languageIds',
      given(q.stringText) && 'stringText',
    ].filter((x): x is string => typeof x === 'string');
    if (needs.length > 0) throw badRequest(`${needs.join(', ')} requires includeTranslations=true.`);
  }
  if (q.matchingTranslationsOnly !== undefined && allTranslations && !(given(q.stringText) && includeTranslations)) {
    throw badRequest('matchingTranslationsOnly must be used together with stringText and includeTranslations=true.');
  }

  let modifiedAfter: bigint | null = null;
  if (given(q.modifiedAfterTimestamp)) {
    const value = timestampFromBase64(q.modifiedAfterTimestamp);
    if (value === null) {
      throw badRequest(
        'modifiedAfterTimestamp must be the base64 encoding of an 8-byte row version, like AAAAAAAAB9E=.',
        `"${q.modifiedAfterTimestamp}" is not base64 of exactly 8 bytes.`,
      );
    }
    modifiedAfter = value > MAX_ROWVERSION ? MAX_ROWVERSION : value;
  }

  let languageIds: number[] | null = null;
  if (given(q.languageIds)) {
    const parts = commaList(q.languageIds);
    const bad = parts.find((p) => !/^\d{1,9}$/.test(p));
    if (bad !== undefined) {
      throw badRequest(
        `languageIds must be a comma-delimited list of language ids such as 1033,1031; "${bad}" is not one.`,
      );
    }
    languageIds = [...new Set(parts.map(Number))];
  }

  return {
    limit: stringIds ? stringIds.length : (q.limit ?? DEFAULT_LIMIT),
    stringIds,
    description: given(q.descriptionText) ? textMatch(q.descriptionText.trim(), useFullText) : null,
    stringText: given(q.stringText) ? textMatch(q.stringText.trim(), useFullText) : null,
    modifiedAfter,
    includeTranslations,
    languageIds,
    includeDeletedLanguages,
    matchingTranslationsOnly: !allTranslations,
  };
}
