// Independent reads of the archive fixture tables and files, for computing expectations.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { FixtureStore } from '../../src/platform/data/fixture-store.js';
import { testApp } from '../helpers/app.js';

export interface FixtureFile {
  name: string;
  source: string;
  format: string;
  size?: string;
  mtime?: string;
  md5: string;
  crc32?: string;
  sha1?: string;
  [key: string]: unknown;
}

export interface FixtureItem {
  identifier: string;
  status: 'ok' | 'dark' | 'unavailable';
  mediatype: string;
  node: number;
  record: Record<string, unknown> & { files: FixtureFile[]; dir: string };
  /** Names as stored in archive_files (also for the dark item, whose record lists none). */
  names: string[];
}

export function fixtureItems(store: FixtureStore): FixtureItem[] {
  const rows = store.db
    .prepare('SELECT identifier, status, mediatype, node, record FROM archive_items ORDER BY position')
    .all() as {
    identifier: string;
    status: FixtureItem['status'];
    mediatype: string;
    node: number;
    record: string;
  }[];
  const names = store.db.prepare('SELECT name FROM archive_files WHERE identifier = ? ORDER BY position');
  return rows.map((r) => ({
    ...r,
    record: JSON.parse(r.record) as FixtureItem['record'],
    names: (names.all(r.identifier) as { name: string }[]).map((n) => n.name),
  }));
}

export function okItems(store: FixtureStore): FixtureItem[] {
  return fixtureItems(store).filter((i) => i.status === 'ok');
}

export function itemOfStatus(store: FixtureStore, status: FixtureItem['status']): FixtureItem {
  const item = fixtureItems(store).find((i) => i.status === status);
  if (!item) throw new Error(`no ${status} item in the fixtures`);
  return item;
}

export function diskPath(store: FixtureStore, identifier: string, name: string): string {
  return path.join(store.filesDir, 'archive', identifier, name);
}

export function readDisk(store: FixtureStore, identifier: string, name: string): Buffer {
  return readFileSync(diskPath(store, identifier, name));
}

export function md5(data: Buffer | string): string {
  return createHash('md5').update(data).digest('hex');
}

export function encodeName(name: string): string {
  return name.split('/').map(encodeURIComponent).join('/');
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** One HTTP/1.1 request with the path sent byte for byte (no client-side normalisation of ../ or \). */
export function rawGet(port: number, rawPath: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('end', () => {
      const all = Buffer.concat(chunks);
      const split = all.indexOf('\r\n\r\n');
      const head = all.subarray(0, split).toString('latin1').split('\r\n');
      const status = Number(head[0]!.split(' ')[1]);
      const headers: Record<string, string> = {};
      for (const line of head.slice(1)) {
        const i = line.indexOf(':');
        headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
      }
      resolve({ status, headers, body: all.subarray(split + 4) });
    });
    socket.write(`GET ${rawPath} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`, 'latin1');
  });
}

/**
 * The app on a loopback port (raw requests skip client-side URL clean-up), an item to attack, and a
 * file of another item whose bytes must never leak.
 */
export async function traversalTarget() {
  const t = await testApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const port = (t.app.server.address() as { port: number }).port;
  const [target, other] = okItems(t.store);
  const otherFile = other!.names.find((n) => n.endsWith('_meta.xml'))!;
  return {
    ...t,
    port,
    target: target!,
    other: other!,
    id: target!.identifier,
    otherId: other!.identifier,
    otherFile,
    real: target!.names[0]!,
  };
}
