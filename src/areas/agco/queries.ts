// StringDefinitions' answers, whole: SQLite builds each definition's JSON in one query; XML reads the rows as
// columns. definitionsBody asks the query executor for one; definitionsAnswer is that task, run in a query
// process under the work budget (--query-timeout), so neither the scan nor the rendering of a large page runs
// on the server's event loop, and a job over the budget gets the ATS's own error.
import type { Config } from '../../config.js';
import type { FixtureStore } from '../../platform/data/fixture-store.js';
import type { QueryPool } from '../../platform/data/query-pool.js';
import { runSteps, type StepOp } from '../../platform/data/steps.js';
import { inAreaTerms } from '../../platform/data/work-budget-error.js';
import { searchBusy, searchTooLong } from './errors.js';
import type { DefinitionFilter, TextMatch } from './filters.js';
import type { StringDefinition, StringTranslation } from './schemas.js';
import { pagedResponseXml } from './xml.js';

export interface DefinitionPage<T> {
  /** The definitions in response order. */
  entities: T[];
  total: number;
}

type Params = Record<string, string | number | bigint>;

/** One statement on the store, its statement's modes set by runSteps (prepared statements are shared). */
const read = <T>(store: FixtureStore, op: StepOp, sql: string, params: Params): T =>
  runSteps(store, [{ op, sql, params }])[0] as T;

function textCondition(
  column: string,
  ftsTable: string,
  rowid: string,
  match: TextMatch,
  name: string,
  params: Params,
): string | null {
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

const DEFINITION_COLUMNS = `d.rowid AS rid, d.id AS Id, d.description AS DescriptionForTranslator,
  d.do_not_translate AS DoNotTranslate, d.parameter_count AS ParameterCount, d.ts_b64 AS Timestamp`;

/** A filter turned into SQL once, for either rendering of the page. */
interface Plan {
  params: Params;
  /** `WHERE ...` over agco_definitions d, or empty. */
  filter: string;
  /** Which translations of a definition are embedded, apart from the link to it; null without includeTranslations. */
  translations: string[] | null;
}

function plan(f: DefinitionFilter): Plan {
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
    where.push(
      `d.rowid IN (SELECT t.def_rowid FROM agco_translations t${conditions.length ? ` WHERE ${conditions.join(' AND ')}` : ''})`,
    );
  }
  if (f.modifiedAfter !== null) {
    params.after = f.modifiedAfter;
    where.push('d.ts > @after');
  }
  let translations: string[] | null = null;
  if (f.includeTranslations) {
    translations = [...languages];
    if (translationMatch && f.matchingTranslationsOnly) translations.push(translationMatch);
  }
  return { params, filter: where.length > 0 ? `WHERE ${where.join(' AND ')}` : '', translations };
}

type Read<T> = (sql: string, params: Params) => T[];

/**
 * The page's definitions, `select` evaluated over each (alias d) and read by `read`, and the total that matched.
 * Order: by Timestamp ascending (unique, like a rowversion), so a client pages by passing the last
 * Timestamp it saw as modifiedAfterTimestamp; with stringIds, in the order the ids were given.
 */
function selectPage<T>(
  f: DefinitionFilter,
  p: Plan,
  select: string,
  rows: Read<T>,
  store: FixtureStore,
): DefinitionPage<T> {
  const params = { ...p.params };
  if (f.stringIds) {
    params.ids = JSON.stringify(f.stringIds);
    const sql = `SELECT ${select} FROM json_each(@ids) j JOIN agco_definitions d ON d.id = j.value ORDER BY j.key`;
    const entities = rows(sql, params);
    return { entities, total: entities.length };
  }
  params.limit = f.limit;
  // The page is picked first, so what `select` builds is built only for the rows that are returned.
  const pageSql = `SELECT ${select} FROM (SELECT d.rowid AS rid FROM agco_definitions d ${p.filter} ORDER BY d.ts LIMIT @limit) p
    JOIN agco_definitions d ON d.rowid = p.rid ORDER BY d.ts`;
  const entities = rows(pageSql, params);
  if (entities.length < f.limit) return { entities, total: entities.length };
  const countParams = { ...p.params };
  if (!f.stringText) delete countParams.languageIds;
  const total = countDefinitions(store, `SELECT count(*) FROM agco_definitions d ${p.filter}`, countParams);
  return { entities, total };
}

/** The page with one JSON object text per definition, built by SQLite, translations included. */
function findDefinitions(store: FixtureStore, f: DefinitionFilter): DefinitionPage<string> {
  const p = plan(f);
  let select = DEFINITION_JSON;
  if (p.translations) {
    const conditions = ['t.def_rowid = d.rowid', ...p.translations];
    // json() around the subquery: newer SQLite drops the JSON subtype at a subquery boundary, and
    // json_object would otherwise embed the array as a string.
    select += `, 'Translations', json((SELECT json_group_array(json(${TRANSLATION_JSON}) ORDER BY t.language_id)
      FROM agco_translations t WHERE ${conditions.join(' AND ')}))`;
  }
  const rows: Read<string> = (sql, params) => read(store, 'pluckAll', sql, params);
  return selectPage(f, p, `${select})`, rows, store);
}

type DefinitionRow = Omit<StringDefinition, 'DoNotTranslate'> & { rid: number; DoNotTranslate: number };
type TranslationRow = StringTranslation & { rid: number };

/** The same page as objects, for renderings other than JSON: the same rows, read as columns. */
function findDefinitionObjects(store: FixtureStore, f: DefinitionFilter): DefinitionPage<StringDefinition> {
  const p = plan(f);
  const rows: Read<DefinitionRow> = (sql, params) => read(store, 'all', sql, params);
  const page = selectPage(f, p, DEFINITION_COLUMNS, rows, store);
  const byRowid = new Map<number, StringDefinition>();
  const entities = page.entities.map(({ rid, DoNotTranslate, ...d }) => {
    const entity: StringDefinition = { ...d, DoNotTranslate: DoNotTranslate === 1 };
    if (p.translations) entity.Translations = [];
    byRowid.set(rid, entity);
    return entity;
  });
  if (p.translations && entities.length > 0) {
    const params = { ...p.params, rids: JSON.stringify([...byRowid.keys()]) };
    const conditions = ['t.def_rowid IN (SELECT value FROM json_each(@rids))', ...p.translations];
    const sql = `SELECT t.def_rowid AS rid, t.author_id AS AuthorId, t.language_id AS LanguageId, t.state AS State,
      d.id AS StringId, t.value AS StringValue, t.ts_b64 AS Timestamp
      FROM agco_translations t JOIN agco_definitions d ON d.rowid = t.def_rowid
      WHERE ${conditions.join(' AND ')} ORDER BY t.def_rowid, t.language_id`;
    const translations = read<TranslationRow[]>(store, 'all', sql, params);
    for (const { rid, ...t } of translations) byRowid.get(rid)!.Translations!.push(t);
  }
  return { entities, total: page.total };
}

// Counting scans every match while a page stops after `limit` rows; the data is read-only, so counts are kept.
function countDefinitions(store: FixtureStore, sql: string, params: Params): number {
  const cache = store.lru<number>('agco:counts', () => ({ max: 2000 }));
  const key = `${sql}\0${JSON.stringify(params, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`;
  let total = cache.get(key);
  if (total === undefined) {
    total = read<number>(store, 'pluckGet', sql, params);
    cache.set(key, total);
  }
  return total;
}

/** How a StringDefinitions answer is rendered: the paged response as JSON or XML, or one definition's JSON. */
export type Rendering = 'json' | 'xml' | 'entity';

export interface DefinitionsJob {
  filter: DefinitionFilter;
  rendering: Rendering;
}

/** The finished body (definitionsAnswer) in parts, or null for one definition that does not exist. */
export function definitionsBody(
  pool: QueryPool,
  store: FixtureStore,
  config: Config,
  job: DefinitionsJob,
): Promise<Uint8Array[] | null> {
  return inAreaTerms(pool.runTask(store, 'agco:definitions', job, config.queryTimeout), searchTooLong, searchBusy);
}

/**
 * The finished body for a filter, as UTF-8 bytes: the PagedResponse (Entities in Timestamp order, Metadata) as
 * JSON or XML, or the first definition's JSON; null for 'entity' when nothing matched. A task of the query
 * executor.
 */
export function definitionsAnswer(store: FixtureStore, { filter, rendering }: DefinitionsJob): Uint8Array | null {
  if (rendering === 'xml') {
    const page = findDefinitionObjects(store, filter);
    const metadata = { TotalCount: page.total, Limit: filter.limit, Offset: 0 };
    return Buffer.from(pagedResponseXml({ Entities: page.entities, Metadata: metadata }));
  }
  const page = findDefinitions(store, filter);
  if (rendering === 'entity') return page.entities[0] === undefined ? null : Buffer.from(page.entities[0]);
  const metadata = `{"TotalCount":${page.total},"Limit":${filter.limit},"Offset":0}`;
  return Buffer.from(`{"Entities":[${page.entities.join(',')}],"Metadata":${metadata}}`);
}

export interface LanguageRow {
  id: number;
  deleted: boolean;
}

export function listLanguages(store: FixtureStore): LanguageRow[] {
  const rows = store
    .prepare('SELECT locale_id AS id, is_deleted AS deleted FROM agco_languages ORDER BY locale_id')
    .all() as { id: number; deleted: number }[];
  return rows.map((r) => ({ id: r.id, deleted: r.deleted === 1 }));
}

export function firstStringIds(store: FixtureStore, count: number): string[] {
  return store.prepare('SELECT id FROM agco_definitions ORDER BY ts LIMIT ?').pluck().all(count) as string[];
}
