// Prepared lookups over the archive_* tables; names are matched exactly, never turned into paths here.
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FixtureStore } from '../../platform/data/fixture-store.js';

export type ItemStatus = 'ok' | 'dark' | 'unavailable';

export interface ItemRow {
  identifier: string;
  status: ItemStatus;
  node: number;
}

export interface FileRow {
  name: string;
  size: number;
  mtime: number;
}

export function findItem(store: FixtureStore, identifier: string): ItemRow | undefined {
  return store.prepare('SELECT identifier, status, node FROM archive_items WHERE identifier = ?').get(identifier) as
    | ItemRow
    | undefined;
}

export function findFile(store: FixtureStore, identifier: string, name: string): FileRow | undefined {
  return store
    .prepare('SELECT name, size, mtime FROM archive_files WHERE identifier = ? AND name = ?')
    .get(identifier, name) as FileRow | undefined;
}

/** The metadata record as stored: ready JSON text, kept as bytes for the items clients ask for. */
export function itemRecordJson(store: FixtureStore, identifier: string): string | undefined {
  const records = store.lru<{ text: string | undefined }>('archive:records', () => ({ max: 2000 }));
  let hit = records.get(identifier);
  if (!hit) {
    const row = store.prepare('SELECT record FROM archive_items WHERE identifier = ?').get(identifier) as
      | { record: string }
      | undefined;
    hit = { text: row?.record };
    // Unknown identifiers are not kept: a client probing ids must not fill the cache.
    if (row) records.set(identifier, hit);
  }
  return hit.text;
}

export interface CatalogItem {
  identifier: string;
  files: string[];
  status: ItemStatus;
}

export function catalogItems(store: FixtureStore): CatalogItem[] {
  const items = store.prepare('SELECT identifier, status FROM archive_items ORDER BY position').all() as {
    identifier: string;
    status: ItemStatus;
  }[];
  const files = store.prepare('SELECT identifier, name FROM archive_files ORDER BY identifier, position').all() as {
    identifier: string;
    name: string;
  }[];
  const byItem = new Map<string, string[]>();
  for (const f of files) {
    let list = byItem.get(f.identifier);
    if (!list) byItem.set(f.identifier, (list = []));
    list.push(f.name);
  }
  return items.map((i) => ({ identifier: i.identifier, files: byItem.get(i.identifier) ?? [], status: i.status }));
}

export type Resolution =
  | { ok: true; item: ItemRow; file: FileRow }
  | { ok: false; status: 403 | 404 | 503; item?: ItemRow };

const IDENTIFIER = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
const MAX_NAME = 1024;

/** A name that could only mean "outside the item": it is answered 404 before anything else is looked at. */
export function isSuspiciousName(name: string): boolean {
  if (name.length === 0 || name.length > MAX_NAME) return true;
  if (name.includes('\0') || name.includes('\\') || name.startsWith('/')) return true;
  return name.split('/').some((segment) => segment === '..' || segment === '.' || segment === '');
}

/** Decides what a download answers, from the item's status and its file list (exact names only). */
export function resolveDownload(store: FixtureStore, identifier: string, name: string): Resolution {
  if (!IDENTIFIER.test(identifier) || isSuspiciousName(name)) return { ok: false, status: 404 };
  const item = findItem(store, identifier);
  if (!item) return { ok: false, status: 404 };
  if (item.status === 'dark') return { ok: false, status: 403, item };
  if (item.status === 'unavailable') return { ok: false, status: 503, item };
  const file = findFile(store, identifier, name);
  return file ? { ok: true, item, file } : { ok: false, status: 404, item };
}

/** `{"result": value}` for a path inside the record (objects by key, arrays by index), or null when absent. */
export function recordPath(
  recordJson: string,
  segments: string[],
  start?: number,
  count?: number,
): { result: unknown } | null {
  let value: unknown = JSON.parse(recordJson);
  for (const segment of segments) {
    if (Array.isArray(value) && /^\d+$/.test(segment) && Number(segment) < value.length) value = value[Number(segment)];
    else if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.hasOwn(value, segment)) {
      value = (value as Record<string, unknown>)[segment];
    } else return null;
  }
  if (Array.isArray(value) && (start !== undefined || count !== undefined)) {
    const from = start ?? 0;
    value = value.slice(from, count === undefined ? undefined : from + count);
  }
  return { result: value };
}

/** The item's data node host (`server` in its record, e.g. ia600123.us.archive.org). */
export function dataNodeOf(store: FixtureStore, identifier: string): string | undefined {
  const record = itemRecordJson(store, identifier);
  if (record === undefined) return undefined;
  const server = (JSON.parse(record) as { server?: unknown }).server;
  return typeof server === 'string' ? server : undefined;
}

/**
 * Makes sure the file is on disk under `itemDir`. Generated data always is; a scenario keeps its bytes in
 * archive_file_bytes and a file is written the first time it is asked for (with its record's mtime, which
 * the ETag and Last-Modified are made from).
 */
export function ensureFileOnDisk(store: FixtureStore, identifier: string, itemDir: string, file: FileRow): void {
  const written = store.memo('archive:bytes-on-disk', (s) =>
    s.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'archive_file_bytes'").get()
      ? new Set<string>()
      : null,
  );
  if (written === null) return;
  const key = `${identifier}/${file.name}`;
  if (written.has(key)) return;
  const full = path.join(itemDir, file.name);
  if (!existsSync(full)) {
    const row = store
      .prepare('SELECT data FROM archive_file_bytes WHERE identifier = ? AND name = ?')
      .get(identifier, file.name) as { data: Buffer } | undefined;
    if (!row) return;
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, row.data);
    utimesSync(full, file.mtime, file.mtime);
  }
  written.add(key);
}
