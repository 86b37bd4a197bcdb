// The scenario admin routes: create/replace/list/remove, bad bodies, limits, unknown names, journal, reset, token.
import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { expectContract } from '../helpers/contract.js';
import { inScenario, putScenario } from './helpers.js';

const { app } = await testApp();

const body = (releases: number) => ({
  appcenter: {
    users: [{ name: 'u', token: 'u-token' }],
    apps: [
      {
        owner: 'u',
        name: 'App',
        releases: Array.from({ length: releases }, (_, i) => ({
          id: i + 1,
          version: String(i),
          short_version: `1.${i}`,
          uploaded_at: `2025-01-0${i + 1}T00:00:00Z`,
        })),
      },
    ],
  },
});

async function put(name: string, payload: unknown) {
  return app.inject({ method: 'PUT', url: `/__mockyard/scenarios/${name}`, payload: payload as object });
}

describe('scenario admin routes', () => {
  it('creates with 201, replaces with 200, with per-area record counts; lists, shows and removes', async () => {
    const created = await put('admin-a', body(2));
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({
      name: 'admin-a',
      areas: ['appcenter'],
      counts: { appcenter: { users: 1, apps: 1, releases: 2 } },
      path: '/scenarios/admin-a',
    });
    const replaced = await put('admin-a', {
      ...body(3),
      dkan: { datasets: [{ id: 'd', resources: [{ rows: [{ a: 1 }, { a: 2 }] }] }] },
    });
    expect(replaced.statusCode).toBe(200);
    expect(replaced.json().counts).toEqual({
      appcenter: { users: 1, apps: 1, releases: 3 },
      dkan: { datasets: 1, rows: 2 },
    });
    const releases = await app.inject({
      url: '/appcenter/v0.1/apps/u/App/releases',
      headers: inScenario('admin-a', { 'x-api-token': 'u-token' }),
    });
    expect(releases.json()).toHaveLength(3);

    const list = (await app.inject('/__mockyard/scenarios')).json() as { scenarios: { name: string }[] };
    expect(list.scenarios.map((s) => s.name)).toContain('admin-a');
    expect((await app.inject('/__mockyard/scenarios/admin-a')).json().areas).toEqual(['appcenter', 'dkan']);
    expect((await app.inject({ method: 'DELETE', url: '/__mockyard/scenarios/admin-a' })).json()).toEqual({
      removed: 'admin-a',
    });
    expect((await app.inject({ method: 'DELETE', url: '/__mockyard/scenarios/admin-a' })).statusCode).toBe(404);
    expect((await app.inject('/__mockyard/scenarios/admin-a')).statusCode).toBe(404);
  });

  it.each([
    ['an unknown area', { appcentre: {} }, '/appcentre'],
    [
      'a wrong type deep inside',
      {
        appcenter: {
          apps: [
            {
              owner: 'o',
              name: 'n',
              releases: [{ id: 'one', version: '1', short_version: '1', uploaded_at: '2025-01-01T00:00:00Z' }],
            },
          ],
        },
      },
      '/appcenter/apps/0/releases/0/id',
    ],
    [
      'a group a release names that the app lacks',
      {
        appcenter: {
          apps: [
            {
              owner: 'o',
              name: 'n',
              groups: [{ name: 'A' }],
              releases: [
                {
                  id: 1,
                  version: '1',
                  short_version: '1',
                  uploaded_at: '2025-01-01T00:00:00Z',
                  distribution_groups: [{ name: 'B' }],
                },
              ],
            },
          ],
        },
      },
      '/appcenter/apps/0/releases/0/distribution_groups/0/name',
    ],
    [
      'a user group that does not exist',
      { appcenter: { users: [{ name: 'u', groups: ['o/n/Nope'] }] } },
      '/appcenter/users/0/groups/0',
    ],
    [
      'a bad AGCO timestamp',
      { agco: { definitions: [{ Id: 'x', Timestamp: 'abc' }] } },
      '/agco/definitions/0/Timestamp',
    ],
    [
      'a file with two kinds of bytes',
      { archive: { items: [{ identifier: 'i', files: [{ name: 'a', content: 'x', size: 1 }] }] } },
      '/archive/items/0/files/0',
    ],
    [
      'a file name leaving the item',
      { archive: { items: [{ identifier: 'i', files: [{ name: '../etc/passwd', content: 'x' }] }] } },
      '/archive/items/0/files/0/name',
    ],
    [
      'rows as arrays without columns',
      { dkan: { datasets: [{ id: 'd', resources: [{ rows: [[1, 2]] }] }] } },
      '/dkan/datasets/0/resources/0/rows/0',
    ],
    [
      'a listing without a price',
      {
        marketcheck: {
          listings: [{ make: 'a', model: 'b', car_type: 'new', state: 'TX', city: 'X', miles: 1, dom: 1 }],
        },
      },
      '/marketcheck/listings/0',
    ],
  ])('refuses %s with a 400 naming the JSON pointer, and stores nothing', async (_what, payload, pointer) => {
    const res = await put('bad-body', payload);
    expect(res.statusCode).toBe(400);
    const json = res.json() as { message: string; pointer: string };
    expect(json.pointer).toBe(pointer);
    expect(json.message).toContain(pointer);
    expect((await app.inject('/__mockyard/scenarios/bad-body')).statusCode).toBe(404);
  });

  it('keeps the previous version when a replacement is refused', async () => {
    await putScenario(app, 'keep-me', body(1));
    expect((await put('keep-me', { appcenter: { nope: 1 } })).statusCode).toBe(400);
    expect((await app.inject('/__mockyard/scenarios/keep-me')).json().counts.appcenter.releases).toBe(1);
  });

  it('refuses a bad name and a body over 20 MB', async () => {
    expect((await put('bad%20name', {})).statusCode).toBe(400);
    const huge = { dkan: { datasets: [{ id: 'd', resources: [{ csv: `a\n${'x'.repeat(21 * 1024 * 1024)}\n` }] }] } };
    const res = await put('huge', huge);
    expect(res.statusCode).toBe(413);
  });

  it('holds at most 100 scenarios', async () => {
    await app.inject({ method: 'POST', url: '/__mockyard/reset' });
    for (let i = 0; i < 100; i++) expect((await put(`s${i}`, {})).statusCode).toBe(201);
    const over = await put('one-too-many', {});
    expect(over.statusCode).toBe(409);
    expect(over.json().message).toMatch(/at most 100 scenarios/);
    // Replacing one is still fine; reset removes them all.
    expect((await put('s5', {})).statusCode).toBe(200);
    await app.inject({ method: 'POST', url: '/__mockyard/reset' });
    expect((await app.inject('/__mockyard/scenarios')).json().scenarios).toEqual([]);
  });

  it("answers a request naming an unknown scenario with a 404 naming it, in the area's error shape", async () => {
    const mc = await app.inject({
      url: '/marketcheck/popular/cars?api_key=k&car_type=new',
      headers: inScenario('no-such-thing'),
    });
    expectContract('getPopularCars', mc);
    expect(mc.statusCode).toBe(404);
    expect(mc.json().message).toContain('no-such-thing');
    const byPath = await app.inject('/scenarios/no-such-thing/dkan/datastore/query/x/0');
    expect(byPath.statusCode).toBe(404);
    expect(byPath.json().message).toContain('no-such-thing');
    const archive = await app.inject({ url: '/archive/metadata/x', headers: inScenario('no-such-thing') });
    expect(archive.statusCode).toBe(404);
    expect(archive.headers['mockyard-error']).toContain('no-such-thing');
    const catalog = await app.inject({ url: '/__mockyard/fixtures', headers: inScenario('no-such-thing') });
    expect(catalog.statusCode).toBe(404);
    expect(catalog.json().message).toContain('no-such-thing');
  });

  it('records the scenario in the journal and filters by it', async () => {
    await putScenario(app, 'journaled', body(1));
    await app.inject({ method: 'DELETE', url: '/__mockyard/requests' });
    await app.inject({
      url: '/appcenter/v0.1/apps/u/App/releases',
      headers: inScenario('journaled', { 'x-api-token': 'u-token' }),
    });
    await app.inject({
      url: '/scenarios/journaled/appcenter/v0.1/apps/u/App/releases',
      headers: { 'x-api-token': 'u-token' },
    });
    await app.inject('/marketcheck/popular/cars?api_key=k&car_type=new');
    const all = (await app.inject('/__mockyard/requests')).json() as {
      requests: { scenario: string | null; path: string; status: number }[];
    };
    expect(all.requests.map((r) => r.scenario)).toEqual([null, 'journaled', 'journaled']);
    expect(all.requests[1]!.path).toBe('/appcenter/v0.1/apps/u/App/releases');
    const filtered = (await app.inject('/__mockyard/requests?scenario=journaled')).json() as {
      total: number;
      requests: { status: number }[];
    };
    expect(filtered.total).toBe(2);
    expect(filtered.requests.every((r) => r.status === 200)).toBe(true);
  });

  it('publishes the body schema in /openapi.json under the admin routes', async () => {
    const doc = (await app.inject('/openapi.json')).json() as {
      paths: Record<
        string,
        Record<
          string,
          { requestBody?: { content: Record<string, { schema: { properties: Record<string, unknown> } }> } }
        >
      >;
    };
    const put = doc.paths['/__mockyard/scenarios/{name}']!.put!;
    expect(Object.keys(put.requestBody!.content['application/json']!.schema.properties)).toEqual([
      'appcenter',
      'agco',
      'marketcheck',
      'archive',
      'dkan',
      // WireMock stub mappings that answer only in the scenario (docs/stubs.md).
      'stubs',
      'mappings',
    ]);
  });
});

describe('scenario admin routes follow the admin switch and token', async () => {
  const withToken = await testApp({ adminToken: 'sesame' });
  const off = await testApp({ admin: false });

  it('needs the admin token when one is set', async () => {
    const denied = await withToken.app.inject({ method: 'PUT', url: '/__mockyard/scenarios/x', payload: {} });
    expect(denied.statusCode).toBe(401);
    const ok = await withToken.app.inject({
      method: 'PUT',
      url: '/__mockyard/scenarios/x',
      payload: {},
      headers: { authorization: 'Bearer sesame' },
    });
    expect(ok.statusCode).toBe(201);
  });

  it('is not served with --admin off', async () => {
    expect((await off.app.inject({ method: 'PUT', url: '/__mockyard/scenarios/x', payload: {} })).statusCode).toBe(404);
  });
});
