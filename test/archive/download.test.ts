import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { expectContract } from '../helpers/contract.js';
import { encodeName, itemOfStatus, md5, okItems, readDisk, type FixtureFile } from './helpers.js';

const { app, store } = await testApp();
const items = okItems(store);
const item = items.find((i) => i.mediatype === 'audio')!;
const withSize = (f: FixtureFile) => f.size !== undefined;
const file = item.record.files.find((f) => f.name.endsWith('.mp3'))!;
const url = (id: string, name: string) => `/archive/download/${id}/${encodeName(name)}`;

const EXPECTED_TYPES: Record<string, string> = {
  txt: 'text/plain; charset=utf-8',
  xml: 'text/xml; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  json: 'application/json',
  pdf: 'application/pdf',
  jpg: 'image/jpeg',
  png: 'image/png',
  mp3: 'audio/mpeg',
  mp4: 'video/mp4',
  zip: 'application/zip',
  torrent: 'application/x-bittorrent',
};

function expectHtmlPage(
  res: { statusCode: number; headers: Record<string, unknown>; body: string },
  status: number,
  title: string | RegExp,
) {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
  const found = /<title>([^<]*)<\/title>/.exec(res.body)?.[1];
  if (typeof title === 'string') expect(found).toBe(title);
  else expect(found).toMatch(title);
}

describe('GET /archive/download/{identifier}/{filename}', () => {
  it("serves every file of every item with the bytes the metadata's md5 and size describe", async () => {
    let count = 0;
    for (const it of items) {
      for (const f of it.record.files) {
        const res = await app.inject({ url: `${url(it.identifier, f.name)}?cnt=0` });
        expect(res.statusCode, f.name).toBe(200);
        // The contract helper parses any JSON-typed body, so a .json file cannot pass as "binary".
        if (!f.name.endsWith('.json')) expectContract('downloadItemFile', res);
        expect(md5(res.rawPayload), `${it.identifier}/${f.name}`).toBe(f.md5);
        if (f.size !== undefined) expect(res.headers['content-length']).toBe(f.size);
        count++;
      }
    }
    expect(count).toBeGreaterThan(80);
  });

  it('sends nginx-style headers: type by extension, length, Last-Modified from mtime, ETag, Accept-Ranges', async () => {
    const seen = new Set<string>();
    for (const it of items) {
      for (const f of it.record.files.filter(withSize)) {
        const ext = f.name.split('.').pop()!;
        const res = await app.inject(url(it.identifier, f.name));
        expect(res.headers['content-type'], f.name).toBe(EXPECTED_TYPES[ext]);
        expect(res.headers['accept-ranges']).toBe('bytes');
        expect(res.headers['last-modified']).toBe(new Date(Number(f.mtime) * 1000).toUTCString());
        expect(res.headers.etag).toBe(`"${Number(f.mtime).toString(16)}-${Number(f.size).toString(16)}"`);
        seen.add(ext);
      }
    }
    expect([...seen].sort()).toEqual(Object.keys(EXPECTED_TYPES).sort());
  });

  it('serves files in sub-folders and names with spaces', async () => {
    const nested = items.flatMap((it) =>
      it.record.files.filter((f) => f.name.includes('/')).map((f) => [it, f] as const),
    );
    expect(nested.length).toBeGreaterThan(5);
    for (const [it, f] of nested) {
      const res = await app.inject(url(it.identifier, f.name));
      expect(res.statusCode).toBe(200);
      expect(md5(res.rawPayload)).toBe(f.md5);
    }
    const spaced = nested.find(([, f]) => f.name.includes(' '))!;
    expect(
      (await app.inject(`/archive/download/${spaced[0].identifier}/${spaced[1].name.replace(/ /g, '%20')}`)).statusCode,
    ).toBe(200);
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const res = await app.inject({ method: 'HEAD', url: url(item.identifier, file.name) });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-length']).toBe(file.size);
    expect(res.headers['content-type']).toBe('audio/mpeg');
    expect(res.headers.etag).toBeDefined();
    expect(res.rawPayload.length).toBe(0);
    const missing = await app.inject({ method: 'HEAD', url: url(item.identifier, 'nope.mp3') });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).toBe('text/html; charset=utf-8');
  });

  it('answers any single byte range with 206, Content-Range and exactly those bytes', async () => {
    const bytes = readDisk(store, item.identifier, file.name);
    const size = bytes.length;
    await fc.assert(
      fc.asyncProperty(fc.nat(size - 1), fc.nat(size + 100), async (a, b) => {
        const [start, end] = a <= b ? [a, b] : [b, a];
        const res = await app.inject({
          url: url(item.identifier, file.name),
          headers: { range: `bytes=${start}-${end}` },
        });
        const last = Math.min(end, size - 1);
        expect(res.statusCode).toBe(206);
        expect(res.headers['content-range']).toBe(`bytes ${start}-${last}/${size}`);
        expect(res.headers['content-length']).toBe(String(last - start + 1));
        expect(res.rawPayload.equals(bytes.subarray(start, last + 1))).toBe(true);
      }),
      { numRuns: 40 },
    );
    const suffix = await app.inject({ url: url(item.identifier, file.name), headers: { range: 'bytes=-100' } });
    expect(suffix.rawPayload.equals(bytes.subarray(size - 100))).toBe(true);
    // ia-py resumes with an open range from what it already has.
    const resume = await app.inject({
      url: url(item.identifier, file.name),
      headers: { range: `bytes=${size - 10}-` },
    });
    expect(resume.statusCode).toBe(206);
    expect(resume.rawPayload.equals(bytes.subarray(size - 10))).toBe(true);
  });

  it('answers an unsatisfiable range with 416 and Content-Range bytes */size', async () => {
    for (const range of [`bytes=${file.size}-`, `bytes=${Number(file.size) + 5}-${Number(file.size) + 10}`]) {
      const res = await app.inject({ url: url(item.identifier, file.name), headers: { range } });
      expectHtmlPage(res, 416, '416 Requested Range Not Satisfiable');
      expect(res.headers['content-range']).toBe(`bytes */${file.size}`);
      expectContract('downloadItemFile', res);
    }
  });

  // nginx's ngx_http_range_parse (ngx_http_range_filter_module.c), which archive.org's data nodes run.
  it('ignores a Range of another unit, an empty one and ranges adding up past the file, as nginx does: 200', async () => {
    const whole = await app.inject(url(item.identifier, file.name));
    for (const range of ['items=0-1', 'bytes=', 'bytes=0-,0-', `bytes=0-${file.size},-${file.size}`]) {
      const res = await app.inject({ url: url(item.identifier, file.name), headers: { range } });
      expect(res.statusCode, range).toBe(200);
      expect(res.rawPayload.equals(whole.rawPayload), range).toBe(true);
      expect(res.headers['content-range'], range).toBeUndefined();
    }
    // nginx takes the unit in any case and spaces around the numbers.
    const spaced = await app.inject({ url: url(item.identifier, file.name), headers: { range: 'BYTES= 2 - 4' } });
    expect(spaced.statusCode).toBe(206);
    expect(spaced.rawPayload.equals(whole.rawPayload.subarray(2, 5))).toBe(true);
  });

  it('answers 416 to byte ranges nginx cannot read and to numbers past 2^63 - 1', async () => {
    for (const range of [
      'bytes=1e3-',
      'bytes=0x10-',
      'bytes=+5-9',
      'bytes=5',
      'bytes=0-1;x',
      'bytes=1-2-3',
      'bytes=0-\t1',
      'bytes=9223372036854775808-',
      'bytes=0-9223372036854775808',
      'bytes=-99999999999999999999999',
      `bytes=0-1,${'9'.repeat(4000)}-`,
    ]) {
      const res = await app.inject({ url: url(item.identifier, file.name), headers: { range } });
      expectHtmlPage(res, 416, '416 Requested Range Not Satisfiable');
      expect(res.headers['content-range'], range).toBe(`bytes */${file.size}`);
    }
    // 2^63 - 1 itself is a number nginx reads: past the end, so up to the last byte.
    const most = await app.inject({
      url: url(item.identifier, file.name),
      headers: { range: 'bytes=1-9223372036854775807' },
    });
    expect(most.statusCode).toBe(206);
    expect(most.headers['content-range']).toBe(`bytes 1-${Number(file.size) - 1}/${file.size}`);
    const padded = await app.inject({
      url: url(item.identifier, file.name),
      headers: { range: `bytes=${'0'.repeat(40)}3-${'0'.repeat(40)}5` },
    });
    expect(padded.headers['content-range']).toBe(`bytes 3-5/${file.size}`);
  });

  it('answers conditional requests with 304 when the client copy is current', async () => {
    const first = await app.inject(url(item.identifier, file.name));
    const etag = String(first.headers.etag);
    const lastModified = String(first.headers['last-modified']);
    for (const headers of [
      { 'if-none-match': etag },
      { 'if-none-match': `"other", ${etag}` },
      { 'if-modified-since': lastModified },
    ]) {
      const res = await app.inject({ url: url(item.identifier, file.name), headers });
      expect(res.statusCode).toBe(304);
      expect(res.rawPayload.length).toBe(0);
      expect(res.headers.etag).toBe(etag);
    }
    const stale = await app.inject({ url: url(item.identifier, file.name), headers: { 'if-none-match': '"5f00-1"' } });
    expect(stale.statusCode).toBe(200);
    const older = await app.inject({
      url: url(item.identifier, file.name),
      headers: { 'if-modified-since': new Date(Date.parse(lastModified) - 1000).toUTCString() },
    });
    expect(older.statusCode).toBe(200);
    // If-Range with the current tag keeps the range; with an old one the whole file comes back.
    const fresh = await app.inject({
      url: url(item.identifier, file.name),
      headers: { range: 'bytes=0-9', 'if-range': etag },
    });
    expect(fresh.statusCode).toBe(206);
    const changed = await app.inject({
      url: url(item.identifier, file.name),
      headers: { range: 'bytes=0-9', 'if-range': '"5f00-1"' },
    });
    expect(changed.statusCode).toBe(200);
  });

  it('takes If-Range as nginx does: the exact tag or exactly the Last-Modified date, checked before the range is read', async () => {
    const first = await app.inject(url(item.identifier, file.name));
    const etag = String(first.headers.etag);
    const lastModified = String(first.headers['last-modified']);
    const status = async (range: string, ifRange: string) =>
      (await app.inject({ url: url(item.identifier, file.name), headers: { range, 'if-range': ifRange } })).statusCode;
    expect(await status('bytes=0-1', etag)).toBe(206);
    expect(await status('bytes=0-1', lastModified)).toBe(206);
    // A weak tag, a list holding the tag, and a later date are not the same version to nginx.
    expect(await status('bytes=0-1', `W/${etag}`)).toBe(200);
    expect(await status('bytes=0-1', `"x", ${etag}`)).toBe(200);
    expect(await status('bytes=0-1', new Date(Date.parse(lastModified) + 86_400_000).toUTCString())).toBe(200);
    // A range nginx would refuse is never read when If-Range does not hold: the whole file.
    expect(await status('bytes=x', new Date(Date.parse(lastModified) + 86_400_000).toUTCString())).toBe(200);
    expect(await status('bytes=x', etag)).toBe(416);
  });

  it('ignores unknown query parameters', async () => {
    const res = await app.inject(`${url(item.identifier, file.name)}?cnt=0&foo=bar&foo=baz&x[y]=1`);
    expect(res.statusCode).toBe(200);
    expect(md5(res.rawPayload)).toBe(file.md5);
  });
});

describe('archive HTML error pages', () => {
  it('answers a missing item or file with the 404 page', async () => {
    for (const u of [
      url('no-such-item-anywhere', 'a.txt'),
      url(item.identifier, 'no-such-file.txt'),
      url(item.identifier, file.name.toUpperCase()),
    ]) {
      const res = await app.inject(u);
      expectHtmlPage(res, 404, '404 Not Found');
      expectContract('downloadItemFile', res);
    }
  });

  it('answers the dark item with 403 for every file, listed or not', async () => {
    const dark = itemOfStatus(store, 'dark');
    for (const name of [...dark.names, 'anything.pdf']) {
      const res = await app.inject(url(dark.identifier, name));
      expectHtmlPage(res, 403, '403 Forbidden');
      expectContract('downloadItemFile', res);
    }
  });

  it('answers the unavailable item with the 503 maintenance page', async () => {
    const down = itemOfStatus(store, 'unavailable');
    for (const name of down.names) {
      const res = await app.inject(url(down.identifier, name));
      expectHtmlPage(res, 503, 'Internet Archive: Scheduled Maintenance');
      expect(res.body).toContain('temporarily offline');
      // The item's state, not a busy server: no Retry-After inviting an immediate retry.
      expect(res.headers['retry-after']).toBeUndefined();
      expectContract('downloadItemFile', res);
    }
  });

  it('answers unknown paths and methods under /archive with the 404 page', async () => {
    for (const req of [
      { url: '/archive' },
      { url: '/archive/' },
      { url: '/archive/details/x' },
      { url: '/archive/download' },
      { url: `/archive/download/${item.identifier}` },
      { url: '/archive/metadata' },
      { method: 'POST' as const, url: url(item.identifier, file.name) },
    ]) {
      const res = await app.inject(req);
      expectHtmlPage(res, 404, '404 Not Found');
    }
  });

  it('forces 403, 404 and 503 for downloadItemFile with the same pages and headers as the natural errors', async () => {
    const force = (status: number) =>
      app.inject({ url: url(item.identifier, file.name), headers: { prefer: `code=${status}` } });
    expect((await force(418)).headers['mockyard-error']).toContain(
      'the statuses it can be forced to are: 403, 404, 416, 500, 503',
    );
    const natural = {
      403: await app.inject(url(itemOfStatus(store, 'dark').identifier, 'x.pdf')),
      404: await app.inject(url(item.identifier, 'nope.txt')),
      503: await app.inject(url(itemOfStatus(store, 'unavailable').identifier, 'x.mp3')),
    };
    for (const status of [403, 404, 503] as const) {
      const forced = await force(status);
      expect(forced.statusCode).toBe(status);
      expect(forced.headers['content-type']).toBe(natural[status].headers['content-type']);
      expect(forced.body).toBe(natural[status].body);
      expectContract('downloadItemFile', forced);
    }
  });
});
