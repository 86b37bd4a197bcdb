import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { LARGE_DIGEST, LARGE_SIZE, largeBlock } from '../../fixtures/archive/build.js';
import { REFERENCE_DATE } from '../../fixtures/build.js';
import { testApp } from '../helpers/app.js';
import { fixtureItems, okItems, readDisk, diskPath } from './helpers.js';

const { store } = await testApp();
const items = fixtureItems(store);

const MAGIC: Record<string, (b: Buffer) => boolean> = {
  pdf: (b) => b.subarray(0, 5).toString('latin1') === '%PDF-' && b.subarray(-6).toString('latin1').includes('%%EOF'),
  png: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  jpg: (b) => b[0] === 0xff && b[1] === 0xd8 && b[b.length - 2] === 0xff && b[b.length - 1] === 0xd9,
  mp3: (b) => b.subarray(0, 3).toString('latin1') === 'ID3',
  mp4: (b) => b.subarray(4, 8).toString('latin1') === 'ftyp',
  zip: (b) => b.readUInt32LE(0) === 0x04034b50 && b.readUInt32LE(b.length - 22) === 0x06054b50,
  torrent: (b) => b.subarray(0, 11).toString('latin1') === 'd8:announce',
  xml: (b) => b.subarray(0, 5).toString('latin1') === '<?xml',
  json: (b) => (JSON.parse(b.toString('utf8')) as unknown) !== undefined,
};

describe('archive fixtures', () => {
  it('has items of every media type, one dark and one unavailable item', () => {
    const ok = okItems(store);
    expect(new Set(ok.map((i) => i.mediatype))).toEqual(new Set(['texts', 'audio', 'movies', 'image', 'data']));
    expect(items.filter((i) => i.status === 'dark')).toHaveLength(1);
    expect(items.filter((i) => i.status === 'unavailable')).toHaveLength(1);
    for (const item of ok)
      expect(item.record.metadata).toMatchObject({ identifier: item.identifier, mediatype: item.mediatype });
  });

  it('covers every file format, and files in sub-folders', () => {
    const names = okItems(store).flatMap((i) => i.names);
    for (const ext of ['txt', 'pdf', 'jpg', 'png', 'mp3', 'mp4', 'xml', 'json', 'zip', 'torrent']) {
      expect(
        names.some((n) => n.endsWith(`.${ext}`)),
        ext,
      ).toBe(true);
    }
    for (const item of okItems(store)) {
      expect(
        item.names.some((n) => n.includes('/')),
        item.identifier,
      ).toBe(true);
      expect(new Set(item.names.map((n) => n.split('.').pop())).size, item.identifier).toBeGreaterThanOrEqual(4);
    }
  });

  it('records size, md5, crc32 and sha1 of the bytes on disk, numbers as strings, mtime as on disk', () => {
    const ref = REFERENCE_DATE.getTime() / 1000;
    let checked = 0;
    for (const item of okItems(store)) {
      expect(item.record.files.map((f) => f.name)).toEqual(item.names);
      expect(item.record.files_count).toBe(item.names.length);
      for (const f of item.record.files) {
        const data = readDisk(store, item.identifier, f.name);
        expect(f.md5, f.name).toBe(createHash('md5').update(data).digest('hex'));
        if (f.name.endsWith('_files.xml')) {
          // The file list describes itself only by name, source, format and md5, as on archive.org.
          expect(Object.keys(f).sort()).toEqual(['format', 'md5', 'name', 'source']);
          continue;
        }
        expect(f.size).toBe(String(data.length));
        expect(f.sha1).toBe(createHash('sha1').update(data).digest('hex'));
        expect(f.crc32).toBe((crc32(data) >>> 0).toString(16).padStart(8, '0'));
        expect(f.mtime).toMatch(/^\d+$/);
        expect(Number(f.mtime)).toBeLessThanOrEqual(ref);
        expect(statSync(diskPath(store, item.identifier, f.name)).mtimeMs).toBe(Number(f.mtime) * 1000);
        checked++;
      }
      const sizes = item.record.files.reduce((n, f) => n + readDisk(store, item.identifier, f.name).length, 0);
      expect(item.record.item_size).toBe(sizes);
    }
    expect(checked).toBeGreaterThan(50);
  });

  it('writes structurally valid files for each format', () => {
    for (const item of okItems(store)) {
      for (const name of item.names) {
        const ext = name.split('.').pop()!;
        const data = readDisk(store, item.identifier, name);
        if (MAGIC[ext]) expect(MAGIC[ext](data), `${item.identifier}/${name}`).toBe(true);
      }
    }
  });

  it('writes ZIPs that unpack to what they name, dated with their mtime in UTC whatever the local zone', () => {
    let zips = 0;
    for (const item of okItems(store)) {
      for (const f of item.record.files.filter((x) => x.name.endsWith('.zip'))) {
        const data = readDisk(store, item.identifier, f.name);
        const entries = unzipSync(new Uint8Array(data));
        expect(Object.keys(entries).length, f.name).toBeGreaterThan(0);
        for (const [name, bytes] of Object.entries(entries)) {
          expect(bytes.length, name).toBeGreaterThan(0);
          // A dataset's ZIP holds copies of its own CSV and JSON.
          if (item.names.includes(name))
            expect(Buffer.from(bytes).equals(readDisk(store, item.identifier, name)), name).toBe(true);
        }
        const [time, day] = [data.readUInt16LE(10), data.readUInt16LE(12)];
        const stamped = Date.UTC(
          (day >> 9) + 1980,
          ((day >> 5) & 15) - 1,
          day & 31,
          time >> 11,
          (time >> 5) & 63,
          (time & 31) * 2,
        );
        expect(stamped / 1000, f.name).toBe(Number(f.mtime) - (Number(f.mtime) % 2));
        zips++;
      }
    }
    expect(zips).toBeGreaterThan(1);
  });

  it('lists every item in the catalog with its files and status', async () => {
    const { archiveArea } = await import('../../src/areas/archive/index.js');
    const catalog = archiveArea.catalog(store, {} as never) as {
      items: { identifier: string; files: string[]; status: string }[];
    };
    expect(catalog.items).toEqual(items.map((i) => ({ identifier: i.identifier, files: i.names, status: i.status })));
  });

  it('records the digest of the 1 GiB file that its bytes have (scale 10 writes it; the digest is a constant)', () => {
    const block = largeBlock();
    const md5 = createHash('md5');
    const sha1 = createHash('sha1');
    let crc = 0;
    for (let done = 0; done < LARGE_SIZE; done += block.length) {
      md5.update(block);
      sha1.update(block);
      crc = crc32(block, crc);
    }
    expect(LARGE_DIGEST).toEqual({
      size: LARGE_SIZE,
      md5: md5.digest('hex'),
      crc32: (crc >>> 0).toString(16).padStart(8, '0'),
      sha1: sha1.digest('hex'),
    });
  });
});
