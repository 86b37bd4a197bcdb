// GET /search (metastore_search: SearchController, Search, QueryBuilderTrait, Facets*Trait): the catalogue
// search over the metastore's datasets. The matching and ordering run as one SQL statement in the query
// pool, over the metastore's search documents bound as a JSON value; facets count the matches.
import type { Config } from '../../config.js';
import type { FixtureStore } from '../../platform/data/fixture-store.js';
import type { QueryPool } from '../../platform/data/query-pool.js';
import { badRequest } from './errors.js';
import { FACET_TYPES, metastoreOf, type FacetType, type MetastoreDataset } from './metastore.js';
import { executedJson, type Answer } from './queries.js';

/** search_api.index.dkan.yml field_settings: string fields match whole values, text fields match words. */
const STRING_FIELDS = ['keyword', 'theme', 'publisher__name', 'modified', 'title_string'] as const;
const TEXT_FIELDS = ['title', 'description'] as const;
const SORT_FIELDS: readonly string[] = [...STRING_FIELDS, ...TEXT_FIELDS];

const MAX_TERMS = 100;

type Params = Record<string, string | string[] | undefined>;

/** The `ignorecase` processor lowers values; words are what the database backend's tokenizer keeps. */
const fold = (s: string): string => s.toLowerCase();
const words = (s: string): string[] => fold(s).match(/[\p{L}\p{N}]+/gu) ?? [];
const wordText = (s: string): string => ` ${words(s).join(' ')} `;

/** The search documents of a store, once: the fields the index holds, lower-cased, as JSON text. */
function documentsOf(store: FixtureStore): string {
  return store.memo('dkan:search-docs', (s) =>
    JSON.stringify(
      metastoreOf(s).datasets.map((d) => {
        const p = d.plain as { title: string; description: string; modified: string };
        return {
          title: wordText(p.title),
          description: wordText(p.description),
          keyword: d.facets.keyword.map(fold),
          theme: d.facets.theme.map(fold),
          publisher__name: d.facets.publisher__name.map(fold),
          modified: [fold(p.modified)],
          title_string: [fold(p.title)],
        };
      }),
    ),
  );
}

/** PHP's str_getcsv + trim, as FacetsCommonTrait::getValuesFromCommaSeparatedString. */
function csvValues(s: string): string[] {
  const out: string[] = [];
  const re = /\s*(?:"((?:[^"]|"")*)"|([^,]*))\s*(,|$)/gy;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    out.push((m[1] !== undefined ? m[1].replace(/""/g, '"') : m[2]!).trim());
    if (m[3] === '') break;
  }
  return out;
}

const lastOf = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[v.length - 1] : v);

interface Plan {
  sql: string;
  params: unknown[];
}

/** Words of a text condition: each one must be in the field (the backend's AND of a value's words). */
function textMatch(field: string, value: string, params: unknown[]): string {
  const list = words(value);
  if (list.length === 0) return '1';
  params.push(...list.map((w) => ` ${w} `));
  return `(${list.map(() => `instr(json_extract(d.value, '$.${field}'), ?) > 0`).join(' AND ')})`;
}

/** QueryBuilderTrait::getQuery as SQL over json_each(documents): fulltext, field conditions, sorts. */
function plan(params: Params): Plan {
  const bound: unknown[] = [];
  const where: string[] = [];
  const fulltext = lastOf(params.fulltext);
  if (fulltext) where.push(`(${TEXT_FIELDS.map((f) => textMatch(f, fulltext, bound)).join(' OR ')})`);
  for (const field of [...STRING_FIELDS, ...TEXT_FIELDS]) {
    const raw = lastOf(params[field]);
    if (raw === undefined) continue;
    for (const value of csvValues(raw)) {
      if ((TEXT_FIELDS as readonly string[]).includes(field)) where.push(textMatch(field, value, bound));
      else {
        bound.push(fold(value));
        where.push(`EXISTS (SELECT 1 FROM json_each(d.value, '$.${field}') AS v WHERE v.value = ?)`);
      }
    }
  }
  // Each word or value is one test per dataset: bounded, so SQLite's expression depth is never reached.
  if (bound.length > MAX_TERMS)
    throw badRequest(`A search may hold at most ${MAX_TERMS} words and filter values; ${bound.length} were given.`);
  const order = sortOrder(params, fulltext ? words(fulltext) : [], bound);
  return {
    sql: `SELECT d.key FROM json_each(?) AS d WHERE ${where.length > 0 ? where.join(' AND ') : '1'} ORDER BY ${order}`,
    params: bound,
  };
}

/** setSort / getSortOrder: known fields only, `asc` unless that position of sort-order is exactly desc. */
function sortOrder(params: Params, relevanceWords: string[], bound: unknown[]): string {
  const sorts = params.sort === undefined ? [] : Array.isArray(params.sort) ? params.sort : csvValues(params.sort);
  const orders =
    params['sort-order'] === undefined
      ? []
      : Array.isArray(params['sort-order'])
        ? params['sort-order']
        : csvValues(params['sort-order']);
  const keys: string[] = [];
  if (sorts.length === 0 || (sorts.length === 1 && sorts[0] === '')) {
    // search_api_relevance: title hits weigh more than description hits; no words, no order but the catalog's.
    const hits = relevanceWords.flatMap((w) => {
      bound.push(` ${w} `, ` ${w} `);
      return [
        `(instr(json_extract(d.value, '$.title'), ?) > 0) * 2`,
        `(instr(json_extract(d.value, '$.description'), ?) > 0)`,
      ];
    });
    if (hits.length > 0) keys.push(`(${hits.join(' + ')}) DESC`);
  }
  sorts.forEach((field, i) => {
    if (!SORT_FIELDS.includes(field)) return;
    const path = (STRING_FIELDS as readonly string[]).includes(field) ? `'$.${field}[0]'` : `'$.${field}'`;
    keys.push(`json_extract(d.value, ${path}) ${orders[i] === 'desc' ? 'DESC' : 'ASC'}`);
  });
  keys.push('d.key ASC');
  return keys.join(', ');
}

/** getParams: defaults, numeric paging, page-size at most 100. */
function paging(params: Params): { start: number; size: number } {
  const page = lastOf(params.page) ?? '1';
  const size = lastOf(params['page-size']) ?? '10';
  const numeric = (s: string) => /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(s);
  if (!numeric(page) || !numeric(size)) throw badRequest('Pagination arguments must be numeric.');
  const n = Math.min(Math.floor(Number(size)), 100);
  return { start: Math.max(0, Math.floor(Number(page)) * n - n), size: Math.max(0, n) };
}

/** FacetsCommonTrait::getFacetsTypes; null when the controller leaves facets out (`facets` PHP-false). */
function facetTypes(params: Params): FacetType[] | null {
  const raw = params.facets;
  if (raw === undefined || Array.isArray(raw)) return [...FACET_TYPES];
  if (raw === '' || raw === '0') return null;
  const asked = csvValues(raw).filter((t) => t !== '');
  if (asked.length === 0) return [...FACET_TYPES];
  return asked.filter((t): t is FacetType => (FACET_TYPES as readonly string[]).includes(t));
}

/** Every value of each facet type, counted over the matches; total desc, then name (Search::orderFacets). */
function facets(all: readonly MetastoreDataset[], matched: readonly MetastoreDataset[], types: FacetType[]) {
  const out: { type: FacetType; name: string; total: number }[] = [];
  for (const type of types) {
    const names = [...new Set(all.flatMap((d) => d.facets[type]))];
    for (const name of names)
      out.push({ type, name, total: matched.filter((d) => d.facets[type].includes(name)).length });
  }
  return out.sort((a, b) => b.total - a.total || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export function search(pool: QueryPool, store: FixtureStore, config: Config, params: Params): Promise<Answer> {
  const { start, size } = paging(params);
  const types = facetTypes(params);
  const { sql, params: bound } = plan(params);
  return executedJson(pool, store, config, async (run) => {
    const [keys] = (await run([{ op: 'pluckAll', sql, params: [documentsOf(store), ...bound] }])) as [number[]];
    const all = metastoreOf(store).datasets;
    const matched = keys.map((k) => all[k]!);
    const page = matched.slice(start, start + size);
    // An empty PHP array encodes as [], a keyed one as an object.
    const results = page.length === 0 ? [] : Object.fromEntries(page.map((d) => [`dkan_dataset/${d.id}`, d.indexed]));
    const body = { total: matched.length, results, ...(types ? { facets: facets(all, matched, types) } : {}) };
    return Buffer.from(JSON.stringify(body));
  });
}
