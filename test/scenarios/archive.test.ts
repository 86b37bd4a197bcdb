// Internet Archive on scenario items: checksums computed from the bytes, downloads and ranges, dark and unavailable items.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { expectContract } from '../helpers/contract.js';
import { inScenario, putScenario } from './helpers.js';

const { app } = await testApp();
const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

await putScenario(app, 'items', {
  archive: {
    items: [
      {
        identifier: 'my-report',
        metadata: { title: 'My report', mediatype: 'texts', subject: ['a', 'b'] },
        files: [
          { name: 'report.txt', content: 'hello scenario\n' },
          { name: 'scans/page 1.png', base64: png.toString('base64'), format: 'PNG' },
          { name: 'big.bin', size: 100_000 },
        ],
      },
      { identifier: 'hidden', dark: true, files: [{ name: 'x.pdf', content: 'x' }] },
      { identifier: 'down', unavailable: true, files: [{ name: 'x.pdf', content: 'x' }] },
    ],
  },
});

const headers = inScenario('items');
type FileEntry = {
  name: string;
  size: string;
  md5: string;
  sha1: string;
  crc32: string;
  format: string;
  mtime: string;
};

describe('Internet Archive in a scenario', () => {
  it('lists the files with size, md5, crc32 and sha1 of the bytes that download', async () => {
    const res = await app.inject({ url: '/archive/metadata/my-report', headers });
    expectContract('getItemMetadata', res);
    const record = res.json() as { files: FileEntry[]; metadata: Record<string, unknown>; files_count: number };
    expect(record.metadata).toMatchObject({
      identifier: 'my-report',
      title: 'My report',
      mediatype: 'texts',
      subject: ['a', 'b'],
    });
    expect(record.files.map((f) => f.name)).toEqual(['report.txt', 'scans/page 1.png', 'big.bin']);
    for (const f of record.files) {
      const download = await app.inject({
        url: `/archive/download/my-report/${f.name.split('/').map(encodeURIComponent).join('/')}`,
        headers,
      });
      expectContract('downloadItemFile', download);
      expect(download.statusCode).toBe(200);
      const bytes = download.rawPayload;
      expect(String(bytes.length)).toBe(f.size);
      expect(createHash('md5').update(bytes).digest('hex')).toBe(f.md5);
      expect(createHash('sha1').update(bytes).digest('hex')).toBe(f.sha1);
    }
    expect(record.files[1]!.format).toBe('PNG');
    expect(record.files[0]!.format).toBe('Text');
  });

  it('serves ranges of a file given by size (deterministic bytes)', async () => {
    const full = (await app.inject({ url: '/archive/download/my-report/big.bin', headers })).rawPayload;
    const part = await app.inject({
      url: '/archive/download/my-report/big.bin',
      headers: { ...headers, range: 'bytes=1000-1999' },
    });
    expectContract('downloadItemFile', part);
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe('bytes 1000-1999/100000');
    expect(part.rawPayload.equals(full.subarray(1000, 2000))).toBe(true);
    const beyond = await app.inject({
      url: '/archive/download/my-report/big.bin',
      headers: { ...headers, range: 'bytes=200000-' },
    });
    expect(beyond.statusCode).toBe(416);
  });

  it('answers 403 for a dark item and 503 for an unavailable one', async () => {
    expect((await app.inject({ url: '/archive/download/hidden/x.pdf', headers })).statusCode).toBe(403);
    expect((await app.inject({ url: '/archive/download/down/x.pdf', headers })).statusCode).toBe(503);
  });

  it('keeps scenario items out of the generated data and generated items out of the scenario', async () => {
    expect((await app.inject('/archive/metadata/my-report')).body).toBe('{}');
    const catalog = (await app.inject('/__mockyard/fixtures')).json() as {
      archive: { items: { identifier: string }[] };
    };
    const generated = catalog.archive.items[0]!.identifier;
    expect((await app.inject({ url: `/archive/metadata/${generated}`, headers })).body).toBe('{}');
    const inside = (await app.inject({ url: '/__mockyard/fixtures', headers })).json() as {
      archive: { items: { identifier: string }[] };
    };
    expect(inside.archive.items.map((i) => i.identifier)).toEqual(['my-report', 'hidden', 'down']);
  });
});
