// Prepared SQL for StringDefinitions: SQLite builds each definition's JSON, translations included, in one query.
import { LRUCache } from 'lru-cache';
import type { FixtureStore } from '../../platform/fixture-store.js';
import type { DefinitionFilter, TextMatch } from './filters.js';

export interface DefinitionPage {
  /** One JSON object text per definition, in response order. */
  entities: string[];
  total: number;
}

type Params = Record<string, string | number | bigint>;

function textCondition(column: string, ftsTable: string, rowid: string, match: TextMatch, name: string, params: Params): string | null {
  if (match.kind === 'all') return null;
  if (match.kind === 'glob') {
    params[name] = match.pattern;
    return `${column}_lc GLOB @${name}`;
  }
  params[name] = match.query;
  return `${rowid} IN (SELECT rowid FROM ${ftsTable} WHERE ${ftsTable} MATCH @${name})`;
}

/** Which translations are visible at all: deleted languages and the languageIds list. */
function languageConditions(f: DefinitionFilter, params: Params): string[] {
  const out: string[] = [];
  if (!f.includeDeletedLanguages) out.push('t.lang_deleted = 0');
  if (f.languageIds) {
    params.languageIds = JSON.stringify(f.languageIds);
    out.push('t.language_id IN (SELECT value FROM json_each(@languageIds))');
  }
  return out;
}

const DEFINITION_JSON = `json_object('Id', d.id, 'DescriptionForTranslator', d.description,
  'DoNotTranslate', json(CASE d.do_not_translate WHEN 1 THEN 'true' ELSE 'false' END),
  'ParameterCount', d.parameter_count, 'Timestamp', d.ts_b64`;

const TRANSLATION_JSON = `json_object('AuthorId', t.author_id, 'LanguageId', t.language_id, 'State', t.state,
  'StringId', d.id, 'StringValue', t.value, 'Timestamp', t.ts_b64)`;

/**
 * Order: by Timestamp ascending (unique, like a rowversion), so a client pages by passing the last
 * Timestamp it saw as modifiedAfterTimestamp; with stringIds, in the order the ids were given.
 */
export function findDefinitions(store: FixtureStore, f: DefinitionFilter): DefinitionPage {
  const params: Params = {};
  const where: string[] = [];
  const languages = languageConditions(f, params);

  if (f.description) {
    const c = textCondition('d.description', 'agco_definitions_fts', 'd.rowid', f.description, 'description', params);
    if (c) where.push(c);
  }
  let translationMatch: string | null = null;
  if (f.stringText) {
    translationMatch = textCondition('t.value', 'agco_translations_fts', 't.rowid', f.stringText, 'stringText', params);
    const conditions = [...languages, ...(translationMatch ? [translationMatch] : [])];
    // One pass over the translations into a set of definitions beats a probe per definition.
    where.push(`d.rowid IN (SELECT t.def_rowid FROM agco_translations t${conditions.length ? ` WHERE ${conditions.join(' AND ')}` : ''})`);
  }
  if (f.modifiedAfter !== null) {
    params.after = f.modifiedAfter;
    where.push('d.ts > @after');
  }

  let select = DEFINITION_JSON;
  if (f.includeTranslations) {
    const conditions = ['t.def_rowid = d.rowid', ...languages];
    if (translationMatch && f.matchingTranslationsOnly) conditions.push(translationMatch);
    // json() around the subquery: SQLite 3.45+ drops the JSON subtype at a subquery boundary, and
    // json_object would otherwise embed the array as a string.
    select += `, 'Translations', json((SELECT json_group_array(json(${TRANSLATION_JSON}) ORDER BY t.language_id)
      FROM agco_translations t WHERE ${conditions.join(' AND ')}))`;
  }
  select += ') AS entity';

  if (f.stringIds) {
    params.ids = JSON.stringify(f.stringIds);
    const sql = `SELECT ${select} FROM json_each(@ids) j JOIN agco_definitions d ON d.id = j.value ORDER BY j.key`;
    const entities = (store.prepare(sql).pluck().all(params) as string[]);
    return { entities, total: entities.length };
  }

  const filter = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
  params.limit = f.limit;
  // The page is picked first, so translation JSON is built only for the rows that are returned.
  const pageSql = `SELECT ${select} FROM (SELECT d.rowid AS rid FROM agco_definitions d ${filter} ORDER BY d.ts LIMIT @limit) p
    JOIN agco_definitions d ON d.rowid = p.rid ORDER BY d.ts`;
  const entities = store.prepare(pageSql).pluck().all(params) as string[];
  if (entities.length < f.limit) return { entities, total: entities.length };
  const countParams = { ...params };
  delete countParams.limit;
  if (!f.stringText) delete countParams.languageIds;
  return { entities, total: countDefinitions(store, `SELECT count(*) FROM agco_definitions d ${filter}`, countParams) };
}

// Counting scans every match while a page stops after `limit` rows; the data is read-only, so counts are kept.
const counts = new WeakMap<FixtureStore, LRUCache<string, number>>();

function countDefinitions(store: FixtureStore, sql: string, params: Params): number {
  let cache = counts.get(store);
  if (!cache) {
    cache = new LRUCache<string, number>({ max: 2000 });
    counts.set(store, cache);
  }
  const key = `${store.generation}\0${sql}\0${JSON.stringify(params, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`;
  let total = cache.get(key);
  if (total === undefined) {
    total = store.prepare(sql).pluck().get(params) as number;
    cache.set(key, total);
  }
  return total;
}

export interface LanguageRow {
  id: number;
  deleted: boolean;
}

export function listLanguages(store: FixtureStore): LanguageRow[] {
  const rows = store.prepare('SELECT locale_id AS id, is_deleted AS deleted FROM agco_languages ORDER BY locale_id').all() as { id: number; deleted: number }[];
  return rows.map((r) => ({ id: r.id, deleted: r.deleted === 1 }));
}

export function firstStringIds(store: FixtureStore, count: number): string[] {
  return store.prepare('SELECT id FROM agco_definitions ORDER BY ts LIMIT ?').pluck().all(count) as string[];
}
