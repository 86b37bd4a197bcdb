// A page on another site cannot read or drive the admin routes (/__mockyard/*), whatever --cors-origins says.
import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';

const open = await testApp();
const listed = await testApp({ corsOrigins: 'http://app.test' });

const ADMIN_READS = [
  '/__mockyard/requests',
  '/__mockyard/requests/count',
  '/__mockyard/fixtures',
  '/__mockyard/health',
];
const ADMIN_WRITES: ['POST' | 'DELETE', string][] = [
  ['POST', '/__mockyard/reset'],
  ['DELETE', '/__mockyard/requests'],
];

describe('admin routes with the default --cors-origins *', () => {
  it.each(['http://evil.test', 'null'])(
    'give origin %s no CORS headers, so the page cannot read them',
    async (origin) => {
      for (const url of ADMIN_READS) {
        const res = await open.app.inject({ url, headers: { origin } });
        expect(res.statusCode, url).toBe(200);
        expect(res.headers['access-control-allow-origin'], url).toBeUndefined();
        expect(res.headers['access-control-allow-credentials'], url).toBeUndefined();
      }
    },
  );

  it.each(['http://evil.test', 'null'])(
    'refuse the preflight of origin %s, so a JSON or custom-header request is never sent',
    async (origin) => {
      for (const [method, url] of ADMIN_WRITES) {
        const res = await open.app.inject({
          method: 'OPTIONS',
          url,
          headers: {
            origin,
            'access-control-request-method': method,
            'access-control-request-headers': 'content-type',
          },
        });
        expect(res.headers['access-control-allow-origin'], url).toBeUndefined();
        expect(res.headers['access-control-allow-methods'], url).toBeUndefined();
      }
    },
  );

  it('refuse a form-style POST /__mockyard/reset (text/plain, no preflight) and change nothing', async () => {
    await open.app.inject('/archive/metadata/none');
    const before = (await open.app.inject('/__mockyard/requests/count')).json<{ count: number }>().count;
    expect(before).toBeGreaterThan(0);
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const res = await open.app.inject({
        method: 'POST',
        url: '/__mockyard/reset',
        headers: { origin: 'http://evil.test', 'content-type': type },
        payload: 'a=b',
      });
      expect(res.statusCode, type).toBeGreaterThanOrEqual(400);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    }
    // A no-cors fetch POST without a body is refused too.
    const bare = await open.app.inject({ method: 'POST', url: '/__mockyard/reset', headers: { origin: 'null' } });
    expect(bare.statusCode).toBe(403);
    expect(bare.json().message).toMatch(/JSON body/);
    expect((await open.app.inject('/__mockyard/requests/count')).json<{ count: number }>().count).toBe(before);
  });

  it('accept state changes with a JSON body or the custom header (what a script or test runner sends)', async () => {
    const json = await open.app.inject({
      method: 'POST',
      url: '/__mockyard/reset',
      headers: { 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(json.statusCode).toBe(200);
    expect(json.json()).toMatchObject({ status: 'reset' });
    const header = await open.app.inject({
      method: 'DELETE',
      url: '/__mockyard/requests',
      headers: { 'x-mockyard-admin': '1' },
    });
    expect(header.statusCode).toBe(200);
    // No page sent these (no Origin) and no form body could: curl or a test runner's bare POST and DELETE.
    expect((await open.app.inject({ method: 'POST', url: '/__mockyard/reset' })).statusCode).toBe(200);
    expect((await open.app.inject({ method: 'DELETE', url: '/__mockyard/requests' })).statusCode).toBe(200);
    // A form body is refused whoever sends it.
    const form = await open.app.inject({
      method: 'POST',
      url: '/__mockyard/reset',
      headers: { 'content-type': 'text/plain' },
      payload: 'x',
    });
    expect(form.statusCode).toBe(403);
  });
});

describe('area routes', () => {
  it('never answer origin null (sandboxed frames, file: pages), even with *', async () => {
    const res = await open.app.inject({ url: '/archive/metadata/none', headers: { origin: 'null' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('reflect any other origin with credentials under *, as a front end in development needs', async () => {
    const res = await open.app.inject({ url: '/archive/metadata/none', headers: { origin: 'http://localhost:3000' } });
    expect(res.headers['access-control-allow-origin']).toBe('http://localhost:3000');
    expect(res.headers['access-control-allow-credentials']).toBe('true');
  });

  it('with an allow list, never reflect null or other origins', async () => {
    for (const origin of ['null', 'http://evil.test']) {
      const res = await listed.app.inject({ url: '/archive/metadata/none', headers: { origin } });
      expect(res.headers['access-control-allow-origin'], origin).toBeUndefined();
      expect(res.headers['access-control-allow-credentials'], origin).toBeUndefined();
    }
  });
});

describe('admin routes with an explicit allow list', () => {
  it('answer a listed origin with credentials, and preflight its state changes', async () => {
    const read = await listed.app.inject({ url: '/__mockyard/requests', headers: { origin: 'http://app.test' } });
    expect(read.headers['access-control-allow-origin']).toBe('http://app.test');
    expect(read.headers['access-control-allow-credentials']).toBe('true');
    const pre = await listed.app.inject({
      method: 'OPTIONS',
      url: '/__mockyard/reset',
      headers: {
        origin: 'http://app.test',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(pre.statusCode).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('http://app.test');
  });

  it('still refuse other origins and null', async () => {
    for (const origin of ['http://evil.test', 'null']) {
      const res = await listed.app.inject({ url: '/__mockyard/requests', headers: { origin } });
      expect(res.headers['access-control-allow-origin'], origin).toBeUndefined();
    }
  });
});
