// The search documents of the archive's items (built once per store from the metadata records) and the two
// search APIs over them: the scraping API (/services/search/v1/scrape) and advanced search (/advancedsearch.php).
// A search reads every item, so it runs where the query executor puts it (searchAnswer, in a query process,
// under the work budget): a scenario holds tens of thousands of items, and a search of them took hundreds of
// milliseconds on the event loop.
import type { FixtureStore } from '../../platform/data/fixture-store.js';
import { QuerySyntaxError, matches, parseQuery, type SearchDoc, type Value } from './search-query.js';

// Solr keeps these multi-valued: advanced search answers them as arrays even with one value.
const MULTI = new Set(['collection', 'creator', 'subject', 'format', 'language', 'contributor']);

function isoDate(ymdhms: unknown): string | undefined {
  return typeof ymdhms === 'string' && /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(ymdhms)
    ? `${ymdhms.replace(' ', 'T')}Z`
    : undefined;
}

interface Record_ {
  metadata?: Record<string, unknown>;
  files?: { format?: string }[];
  item_size?: number;
  files_count?: number;
  uniq?: number;
  is_dark?: boolean;
}

function documentOf(record: Record_): SearchDoc {
  const doc: SearchDoc = {};
  for (const [k, v] of Object.entries(record.metadata ?? {})) {
    if (typeof v === 'string' || typeof v === 'number') doc[k] = v;
    else if (Array.isArray(v)) doc[k] = v.filter((x): x is string => typeof x === 'string');
  }
  for (const k of ['publicdate', 'addeddate']) {
    const iso = isoDate(doc[k]);
    if (iso) doc[k] = iso;
  }
  const year = typeof doc.date === 'string' ? Number(doc.date.slice(0, 4)) : NaN;
  if (Number.isInteger(year)) doc.year = year;
  doc.format = [...new Set((record.files ?? []).map((f) => f.format).filter((f): f is string => !!f))].sort();
  if (record.item_size !== undefined) doc.item_size = record.item_size;
  if (record.files_count !== undefined) doc.files_count = record.files_count;
  // Fixture items have no view counts; a stable number from the record keeps sorts by downloads meaningful.
  doc.downloads = (record.uniq ?? 0) % 5000;
  return doc;
}

/** Every searchable item in fixture order; dark items are not in archive.org's search index. */
export function searchDocs(store: FixtureStore): SearchDoc[] {
  return store.memo('archive:search-docs', (s) => {
    const rows = s.prepare("SELECT record FROM archive_items WHERE status <> 'dark' ORDER BY position").all() as {
      record: string;
    }[];
    return rows.map((r) => documentOf(JSON.parse(r.record) as Record_));
  });
}

export interface Sort {
  field: string;
  desc: boolean;
}

/** `field [asc|desc]` items (scrape: comma-separated; advanced search: sort[] values). */
export function parseSorts(items: string[]): Sort[] {
  return items
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const m = /^([A-Za-z_][\w.-]*)(?:\s+(asc|desc))?$/i.exec(s);
      if (!m) throw new QuerySyntaxError(`Invalid sort "${s}" (expected "<field> asc" or "<field> desc")`);
      return { field: m[1]!, desc: (m[2] ?? 'asc').toLowerCase() === 'desc' };
    });
}

function sortKey(v: Value | undefined): string | number | undefined {
  if (v === undefined) return undefined;
  return Array.isArray(v) ? v[0] : v;
}

function compareBy(sorts: Sort[]) {
  return (a: SearchDoc, b: SearchDoc): number => {
    for (const s of sorts) {
      const [x, y] = [sortKey(a[s.field]), sortKey(b[s.field])];
      if (x === y) continue;
      // Items without the field sort last either way, as Solr's sortMissingLast.
      if (x === undefined) return 1;
      if (y === undefined) return -1;
      const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y), 'en');
      if (c !== 0) return s.desc ? -c : c;
    }
    return 0;
  };
}

export function find(store: FixtureStore, q: string, sorts: Sort[]): SearchDoc[] {
  const tree = parseQuery(q);
  const hits = searchDocs(store).filter((d) => matches(tree, d));
  return sorts.length > 0 ? hits.sort(compareBy(sorts)) : hits;
}

export function pick(doc: SearchDoc, fields: string[] | null, arrays: boolean): Record<string, Value> {
  const out: Record<string, Value> = {};
  for (const f of fields ?? Object.keys(doc)) {
    const v = doc[f];
    if (v === undefined) continue;
    out[f] = arrays && MULTI.has(f) && !Array.isArray(v) ? [v] : v;
  }
  return out;
}

export const SCRAPE_MIN = 100;
export const SCRAPE_MAX = 10_000;

export interface ScrapeParams {
  q: string;
  fields: string[];
  sorts: Sort[];
  count: number;
  cursor: string | undefined;
  totalOnly: boolean;
}

/** The cursor names the last item sent (as archive.org's does: base64 of its sort values and identifier). */
function cursorFor(doc: SearchDoc, sorts: Sort[]): string {
  const key = Object.fromEntries([
    ...sorts.map((s) => [s.field, sortKey(doc[s.field]) ?? null]),
    ['identifier', doc.identifier],
  ]);
  return Buffer.from(JSON.stringify([key])).toString('base64');
}

function afterCursor(hits: SearchDoc[], cursor: string): number {
  let last: unknown;
  try {
    last = (JSON.parse(Buffer.from(cursor, 'base64').toString('utf8')) as { identifier?: unknown }[])[0]?.identifier;
  } catch {
    last = undefined;
  }
  const at = typeof last === 'string' ? hits.findIndex((d) => d.identifier === last) : -1;
  if (at < 0) throw new QuerySyntaxError('Invalid cursor');
  return at + 1;
}

export function scrape(store: FixtureStore, p: ScrapeParams): Record<string, unknown> {
  // identifier always breaks ties last, which is what makes a cursor well defined.
  const sorts = [
    ...p.sorts.filter((s) => s.field !== 'identifier'),
    p.sorts.find((s) => s.field === 'identifier') ?? { field: 'identifier', desc: false },
  ];
  const hits = find(store, p.q, sorts);
  if (p.totalOnly) return { items: [], count: 0, total: hits.length };
  const start = p.cursor ? afterCursor(hits, p.cursor) : 0;
  const page = hits.slice(start, start + p.count);
  const fields = ['identifier', ...p.fields.filter((f) => f !== 'identifier')];
  const body: Record<string, unknown> = {
    items: page.map((d) => pick(d, fields, false)),
    count: page.length,
  };
  if (start + page.length < hits.length) body.cursor = cursorFor(page[page.length - 1]!, sorts);
  body.total = hits.length;
  return body;
}

/** A search as the executor runs it: the query read, and the page wanted. */
export type SearchJob =
  | { api: 'scrape'; params: ScrapeParams }
  | { api: 'advanced'; q: string; sorts: Sort[]; fields: string[] | null; start: number; rows: number };

/**
 * A task of the query executor: one search, whole. The answer's JSON (advanced search: its `response`
 * member) as UTF-8 bytes, which a query process sends in slices when long (a page of every item of a large
 * scenario is megabytes); or, as text, why the request cannot be answered.
 */
export function searchAnswer(store: FixtureStore, job: SearchJob): Uint8Array | string {
  try {
    if (job.api === 'scrape') return Buffer.from(JSON.stringify(scrape(store, job.params)));
    const hits = find(store, job.q, job.sorts);
    const docs = hits.slice(job.start, job.start + job.rows).map((d) => pick(d, job.fields, true));
    return Buffer.from(JSON.stringify({ numFound: hits.length, start: job.start, docs }));
  } catch (err) {
    if (err instanceof QuerySyntaxError) return err.message;
    throw err;
  }
}
