import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { archiveArea } from '../../src/areas/archive/index.js';
import { resolveConfig } from '../../src/config.js';
import { FixtureStore } from '../../src/platform/data/fixture-store.js';
import { Stores } from '../../src/platform/data/stores.js';
import { testApp } from '../helpers/app.js';
import { expectContract } from '../helpers/contract.js';
import { encodeName, itemOfStatus, md5, okItems } from './helpers.js';

const { app, store } = await testApp({ archiveRedirect: true });
const item = okItems(store).find((i) => i.mediatype === 'movies')!;
const file = item.record.files.find((f) => f.name.includes('/'))!;

describe('redirect mode (--archive-redirect)', () => {
  it('answers /download with 302 to the data-node path /{n}/items/{identifier}/{filename} on the mock', async () => {
    const res = await app.inject({
      url: `/archive/download/${item.identifier}/${encodeName(file.name)}?cnt=0`,
      headers: { host: 'mock.test:4010' },
    });
    expect(res.statusCode).toBe(302);
    expectContract('downloadItemFile', res);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const location = new URL(String(res.headers.location));
    expect(location.protocol).toBe('http:');
    expect(location.host).toBe('mock.test:4010');
    expect(location.pathname).toBe(`/archive${item.record.dir}/${encodeName(file.name)}`);
  });

  it('serves the bytes, ranges and conditional requests at the data-node path', async () => {
    const res = await app.inject(`/archive/download/${item.identifier}/${encodeName(file.name)}`);
    const target = new URL(String(res.headers.location)).pathname;
    const got = await app.inject(target);
    expect(got.statusCode).toBe(200);
    expectContract('downloadItemFile', got);
    expect(md5(got.rawPayload)).toBe(file.md5);
    expect(got.headers['content-length']).toBe(file.size);
    const part = await app.inject({ url: target, headers: { range: 'bytes=2-5' } });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 2-5/${file.size}`);
    expect((await app.inject({ url: target, headers: { 'if-none-match': String(got.headers.etag) } })).statusCode).toBe(
      304,
    );
    expect((await app.inject({ url: target, headers: { range: `bytes=${file.size}-` } })).statusCode).toBe(416);
    expect((await app.inject({ method: 'HEAD', url: target })).headers['content-length']).toBe(file.size);
  });

  it('answers missing items and files, and the unavailable item, without a redirect', async () => {
    const cases: [string, number][] = [
      [`/archive/download/no-such-item/x.txt`, 404],
      [`/archive/download/${item.identifier}/no-such-file.txt`, 404],
      [`/archive/download/${item.identifier}/..%2f..%2fetc%2fpasswd`, 404],
      [`/archive/download/${itemOfStatus(store, 'unavailable').identifier}/x.mp3`, 503],
    ];
    for (const [u, status] of cases) {
      const res = await app.inject(u);
      expect(res.statusCode, u).toBe(status);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expectContract('downloadItemFile', res);
    }
  });

  it('redirects the dark item, and its data node refuses with the 403 page', async () => {
    const dark = itemOfStatus(store, 'dark');
    const res = await app.inject(`/archive/download/${dark.identifier}/${encodeName(dark.names[0]!)}`);
    expect(res.statusCode).toBe(302);
    const refused = await app.inject(new URL(String(res.headers.location)).pathname);
    expect(refused.statusCode).toBe(403);
    expect(refused.body).toContain('<title>403 Forbidden</title>');
  });

  it('answers 404 on a data node path with the wrong node number', async () => {
    const wrong = item.node === 1 ? 2 : 1;
    const res = await app.inject(`/archive/${wrong}/items/${item.identifier}/${encodeName(file.name)}`);
    expect(res.statusCode).toBe(404);
    expect(res.body).toContain('<title>404 Not Found</title>');
  });
});

// Built like startServer builds an --area-ports app.
const soloConfig = resolveConfig({ logLevel: 'silent', archiveRedirect: true });
const own = new Stores(FixtureStore.open(soloConfig.dataDir));
const solo = await buildApp(soloConfig, own, { only: archiveArea });
await solo.ready();
afterAll(async () => {
  await solo.close();
  own.close();
});

describe('archive at the root of its own port', () => {
  it('redirects to /{n}/items/... without the /archive prefix and serves the bytes there', async () => {
    const res = await solo.inject(`/download/${item.identifier}/${encodeName(file.name)}`);
    expect(res.statusCode).toBe(302);
    const target = new URL(String(res.headers.location)).pathname;
    expect(target).toBe(`${item.record.dir}/${encodeName(file.name)}`);
    const got = await solo.inject(target);
    expect(md5(got.rawPayload)).toBe(file.md5);
  });

  it('answers metadata and unknown paths like the prefixed area', async () => {
    expect((await solo.inject(`/metadata/${item.identifier}`)).json()).toEqual(item.record);
    const res = await solo.inject('/no/such/path');
    expect(res.statusCode).toBe(404);
    expect(res.body).toContain('<title>404 Not Found</title>');
  });
});
