import { describe, expect, it } from 'vitest';
import { AREAS } from '../../src/areas/index.js';
import { testApp } from '../helpers/app.js';

const { app, store } = await testApp();

describe('platform routes', () => {
  it('reports health once the database is open', async () => {
    const res = await app.inject('/__mockyard/health');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok', fixtures: store.fingerprint, generation: 0 });
    expect(store.fingerprint).toMatch(/^[0-9a-f]{64}$/);
  });

  it("answers 503 in mockyard's error body while the database is not open", async () => {
    const closing = await testApp();
    closing.store.db.close();
    const res = await closing.app.inject('/__mockyard/health');
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({
      statusCode: 503,
      error: 'Service Unavailable',
      message: 'The fixture database is not open yet.',
      status: 'starting',
    });
  });

  it('lists every area in the fixture catalog', async () => {
    const res = await app.inject('/__mockyard/fixtures');
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.json())).toEqual(['archive', 'marketcheck', 'appcenter', 'agco', 'dkan']);
  });

  it('answers unknown paths outside the areas with a JSON 404 naming the path', async () => {
    const res = await app.inject('/no/such/thing?x=1');
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json().message).toContain('GET /no/such/thing');
  });

  it('serves one OpenAPI document with a tag and a server entry per area', async () => {
    const res = await app.inject('/openapi.json');
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.0.3');
    for (const area of AREAS) {
      expect(doc.tags.map((t: { name: string }) => t.name)).toContain(area.name);
      expect(doc.servers.map((s: { url: string }) => s.url)).toContain(area.prefix);
    }
    expect(doc.paths['/__mockyard/health']).toBeDefined();
  });

  it('serves Swagger UI at /docs', async () => {
    const res = await app.inject('/docs/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
  });
});

describe('CORS', () => {
  it('reflects any origin on area routes by default, with credentials', async () => {
    const res = await app.inject({ url: '/archive/metadata/none', headers: { origin: 'http://localhost:5173' } });
    expect(res.headers['access-control-allow-origin']).toBe('http://localhost:5173');
    expect(res.headers['access-control-allow-credentials']).toBe('true');
  });

  it('answers preflight requests', async () => {
    const res = await app.inject({
      method: 'OPTIONS',
      url: '/archive/metadata/none',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'x-api-token',
      },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-headers']).toMatch(/x-api-token/i);
  });
});

describe('CORS with an allow list', async () => {
  const restricted = await testApp({ corsOrigins: 'http://app.test' });
  it('allows listed origins only', async () => {
    const ok = await restricted.app.inject({ url: '/__mockyard/health', headers: { origin: 'http://app.test' } });
    expect(ok.headers['access-control-allow-origin']).toBe('http://app.test');
    const other = await restricted.app.inject({ url: '/__mockyard/health', headers: { origin: 'http://evil.test' } });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });
});
