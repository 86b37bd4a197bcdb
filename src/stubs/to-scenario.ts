// Recorded exchanges of a modelled area as a mockyard scenario body: the records the real service answered
// with become the scenario's records (queried with the area's own filters, sorting and paging); what cannot
// become records stays as the scenario's own stub mappings.
import { REAL_HOSTS } from '../platform/hosts/real-hosts.js';
import type { AreaName } from '../platform/area.js';
import { isObject } from './errors.js';

/** One recorded exchange, as the recorder keeps it (secrets already masked in `mapping`). */
export interface RecordedExchange {
  method: string;
  /** The host and path the real service got (see plugin.ts realView). */
  host: string;
  path: string;
  status: number;
  /** The upstream's answer, as text, when it was JSON. */
  json: unknown;
  /** The WireMock mapping recorded for it. */
  mapping: Record<string, unknown>;
}

export interface RecordedScenario {
  /** A scenario body (see docs/scenarios.md): area members and `stubs`. */
  body: Record<string, unknown>;
  /** How many exchanges became records, by area. */
  converted: Partial<Record<AreaName, number>>;
}

/** The area whose real host name this is, and the path below its contract's base path. */
function areaOf(host: string, path: string): { area: AreaName; rest: string } | undefined {
  for (const rule of REAL_HOSTS) {
    const hit = rule.host.startsWith('*.') ? host.endsWith(rule.host.slice(1)) : host === rule.host;
    if (!hit) continue;
    if (rule.basePath && !path.startsWith(`${rule.basePath}/`)) return undefined;
    return { area: rule.area, rest: path.slice(rule.basePath.length) };
  }
  return undefined;
}

type Cell = string | number | boolean | null;
const isCell = (v: unknown): v is Cell => v === null || ['string', 'number', 'boolean'].includes(typeof v);

/**
 * DKAN's datastore query (GET /api/1/datastore/query/{datasetId}/{index}) answers
 * `{"results": [row, ...], "count", ...}` (DKAN's datastore API); the rows become the resource's rows.
 */
class DkanRecords {
  readonly #datasets = new Map<string, Map<number, { rows: Record<string, Cell>[]; seen: Set<string> }>>();

  take(rest: string, json: unknown): boolean {
    const m = /^\/datastore\/query\/([^/]+)\/(\d{1,2})$/.exec(rest);
    if (!m || !isObject(json) || !Array.isArray(json.results)) return false;
    const rows = json.results.filter((r): r is Record<string, Cell> => isObject(r) && Object.values(r).every(isCell));
    if (rows.length !== json.results.length) return false;
    const id = decodeURIComponent(m[1]!);
    let resources = this.#datasets.get(id);
    if (!resources) this.#datasets.set(id, (resources = new Map()));
    const index = Number(m[2]);
    let resource = resources.get(index);
    if (!resource) resources.set(index, (resource = { rows: [], seen: new Set() }));
    for (const row of rows) {
      // DKAN's own row number is the table's, not a column the user gave (the area adds it back).
      const { record_number: _n, ...cells } = row;
      // Pages that overlap (a repeated or widened query) add each row once.
      const key = JSON.stringify(cells);
      if (resource.seen.has(key)) continue;
      resource.seen.add(key);
      resource.rows.push(cells);
    }
    return true;
  }

  member(): Record<string, unknown> | undefined {
    if (this.#datasets.size === 0) return undefined;
    const datasets = [...this.#datasets].map(([id, resources]) => {
      const last = Math.max(...resources.keys());
      // A resource the recording never read is kept in its place, empty, so the indexes stay the real ones.
      const list = Array.from({ length: last + 1 }, (_, i) => {
        const rows = resources.get(i)?.rows ?? [];
        // A table needs a column: an unread (or empty) resource gets one, and no rows.
        return rows.length > 0 ? { rows } : { columns: ['record'], rows: [] };
      });
      return { id, resources: list };
    });
    return { datasets };
  }
}

/** Internet Archive's item record (GET /metadata/{identifier}): `{"metadata": {...}, "files": [...]}`. */
class ArchiveRecords {
  readonly #items = new Map<string, Record<string, unknown>>();

  take(rest: string, json: unknown): boolean {
    const m = /^\/metadata\/([A-Za-z0-9][A-Za-z0-9._-]{0,99})$/.exec(rest);
    if (!m || !isObject(json) || !isObject(json.metadata)) return false;
    const metadata: Record<string, string | string[]> = {};
    for (const [key, value] of Object.entries(json.metadata)) {
      if (typeof value === 'string') metadata[key] = value;
      else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) metadata[key] = value;
    }
    const files = (Array.isArray(json.files) ? json.files : []).flatMap((f) => {
      if (!isObject(f) || typeof f.name !== 'string' || f.name.startsWith('/') || f.name.includes('..')) return [];
      // The record gives sizes, not bytes: the scenario serves deterministic bytes of the recorded size.
      const size = Number(f.size ?? 0);
      const file: Record<string, unknown> = { name: f.name, size: Number.isSafeInteger(size) && size >= 0 ? size : 0 };
      if (typeof f.format === 'string') file.format = f.format;
      if (f.source === 'original' || f.source === 'derivative' || f.source === 'metadata') file.source = f.source;
      const mtime = Number(f.mtime);
      if (Number.isSafeInteger(mtime) && mtime >= 0 && mtime <= 4102444800) file.mtime = mtime;
      return [file];
    });
    this.#items.set(m[1]!, { identifier: m[1]!, metadata, files });
    return true;
  }

  member(): Record<string, unknown> | undefined {
    return this.#items.size === 0 ? undefined : { items: [...this.#items.values()] };
  }
}

/**
 * A scenario body from recorded exchanges: DKAN datastore rows and archive item records become records;
 * every other exchange (other areas, errors, paths outside every area) stays a stub mapping of the scenario.
 */
export function scenarioFromRecording(exchanges: readonly RecordedExchange[]): RecordedScenario {
  const dkan = new DkanRecords();
  const archive = new ArchiveRecords();
  const converted: Partial<Record<AreaName, number>> = {};
  const stubs: Record<string, unknown>[] = [];
  for (const x of exchanges) {
    const where = areaOf(x.host, x.path);
    let taken = false;
    if (where && x.method === 'GET' && x.status === 200 && x.json !== undefined) {
      if (where.area === 'dkan') taken = dkan.take(where.rest, x.json);
      else if (where.area === 'archive') taken = archive.take(where.rest, x.json);
    }
    if (taken && where) converted[where.area] = (converted[where.area] ?? 0) + 1;
    else stubs.push(x.mapping);
  }
  const body: Record<string, unknown> = {};
  const dkanMember = dkan.member();
  if (dkanMember) body.dkan = dkanMember;
  const archiveMember = archive.member();
  if (archiveMember) body.archive = archiveMember;
  if (stubs.length > 0) body.stubs = stubs;
  return { body, converted };
}
