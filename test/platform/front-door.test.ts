// GET /: the areas, docs and health, as a page and as JSON, and every link it gives answers.
import { describe, expect, it } from 'vitest';
import { AREAS } from '../../src/areas/index.js';
import { testApp } from '../helpers/app.js';

const { app } = await testApp();

describe('the front door', () => {
  it('lists every area, the docs and health as JSON, and each link answers 200', async () => {
    const res = await app.inject({ url: '/', headers: { accept: 'application/json', host: 'mock.test:4010' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = res.json<{
      areas: { name: string; url: string; upstream: string }[];
      links: Record<string, string>;
    }>();
    expect(body.areas.map((a) => a.name)).toEqual(AREAS.map((a) => a.name));
    for (const area of AREAS) {
      const listed = body.areas.find((a) => a.name === area.name);
      expect(listed?.url).toBe(`http://mock.test:4010${area.prefix}`);
      expect(listed?.upstream).toBe(area.upstream.url);
    }
    expect(Object.keys(body.links).sort()).toEqual(['dashboard', 'docs', 'fixtures', 'health', 'openapi']);
    for (const url of Object.values(body.links)) {
      const linked = await app.inject({ url: new URL(url).pathname });
      expect(linked.statusCode, url).toBeLessThan(400);
    }
  });

  it('answers the same facts as a page for a browser', async () => {
    const res = await app.inject({ url: '/', headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    for (const area of AREAS) expect(res.body).toContain(area.upstream.url);
    expect(res.body).toContain('/__mockyard/');
    expect(res.body).toContain('/__mockyard/health');
    const plain = await app.inject({ url: '/' });
    expect(plain.headers['content-type']).toMatch(/^text\/html/);
  });
});

describe('hints that point somewhere true', () => {
  it('tells a client that repeats the real base path under the prefix to drop it', async () => {
    const mc = await app.inject({ url: '/marketcheck/v2/popular/cars?api_key=k&car_type=new' });
    expect(mc.statusCode).toBe(404);
    expect(mc.headers['mockyard-hint']).toContain('drop /v2 from the path (/marketcheck/popular/cars)');
    const fixed = await app.inject({ url: '/marketcheck/popular/cars?api_key=k&car_type=new' });
    expect(fixed.statusCode).toBe(200);
    const dkan = await app.inject({ url: '/dkan/api/1/datastore/query/x/0' });
    expect(dkan.statusCode).toBe(404);
    expect(dkan.headers['mockyard-hint']).toContain('drop /api/1 from the path (/dkan/datastore/query/x/0)');
  });

  it('points a scenario request at the keys of that scenario', async () => {
    const put = await app.inject({
      method: 'PUT',
      url: '/__mockyard/scenarios/own-keys',
      payload: { marketcheck: { apiKeys: ['scenario-key'], listings: [] } },
    });
    expect(put.statusCode, put.body).toBeLessThan(300);
    const res = await app.inject({
      url: '/marketcheck/popular/cars?api_key=wrong&car_type=new',
      headers: { 'mockyard-scenario': 'own-keys' },
    });
    expect(res.statusCode).toBe(401);
    expect(res.headers['mockyard-hint']).toContain('only the apiKeys of scenario own-keys work');
    expect(res.headers['mockyard-hint']).toContain('Mockyard-Scenario: own-keys');
    const catalog = await app.inject({ url: '/__mockyard/fixtures', headers: { 'mockyard-scenario': 'own-keys' } });
    expect(catalog.json<{ marketcheck: { apiKeys: string[] } }>().marketcheck.apiKeys).toEqual(['scenario-key']);
    await app.inject({ method: 'DELETE', url: '/__mockyard/scenarios/own-keys' });
  });
});
