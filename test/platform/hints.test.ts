// mockyard-hint: every area's auth and not-found answers say what was expected, bodies untouched.
import { describe, expect, it } from 'vitest';
import { AREAS } from '../../src/areas/index.js';
import { buildApp } from '../../src/app.js';
import { testApp } from '../helpers/app.js';

const { app, stores, config } = await testApp({ agcoTokens: 'good-token' });
const catalog = (await app.inject('/__mockyard/fixtures')).json() as {
  archive: { items: { identifier: string }[] };
  appcenter: { tokens: { token: string }[] };
  dkan: { datasets: { id: string }[] };
};
const item = catalog.archive.items[0]!.identifier;
const token = catalog.appcenter.tokens[0]!.token;

type Case = [name: string, url: string, headers: Record<string, string>, status: number, hint: RegExp];
const cases: Case[] = [
  ['archive: unknown item', '/archive/metadata/nope-item/files/0', {}, 200, /^$/],
  [
    'archive: unknown file',
    `/archive/download/${item}/no-such-file.pdf`,
    {},
    404,
    /file list exactly.*\/__mockyard\/fixtures under archive\.items/,
  ],
  ['archive: dark item', '/archive/download/mockyard-dark-item/x.pdf', {}, 403, /dark/],
  ['archive: unknown path', '/archive/details/x', {}, 404, /\/metadata\/\{identifier\}/],
  [
    'marketcheck: no key',
    '/marketcheck/popular/cars?car_type=new',
    {},
    401,
    /api_key query parameter; any non-empty key.*marketcheck\.apiKeys/,
  ],
  [
    'marketcheck: key in a header',
    '/marketcheck/popular/cars?car_type=new',
    { 'x-api-key': 'k' },
    401,
    /\(not a header\)/,
  ],
  ['marketcheck: unknown path', '/marketcheck/search', {}, 404, /GET \/popular\/cars/],
  ['marketcheck: the real base path repeated', '/marketcheck/v2/popular/cars', {}, 404, /drop \/v2 from the path/],
  [
    'appcenter: no token',
    '/appcenter/v0.1/apps/alice/Pocket-Notes/releases',
    {},
    401,
    /no X-API-Token header.*appcenter\.tokens/,
  ],
  [
    'appcenter: bearer',
    '/appcenter/v0.1/apps/alice/Pocket-Notes/releases',
    { authorization: `Bearer ${token}` },
    401,
    /X-API-Token header, not from Authorization/,
  ],
  [
    'appcenter: wrong token',
    '/appcenter/v0.1/apps/alice/Pocket-Notes/releases',
    { 'x-api-token': 'nope' },
    401,
    /not a known user token/,
  ],
  [
    'appcenter: unknown app',
    '/appcenter/v0.1/apps/alice/No-Such-App/releases',
    { 'x-api-token': token },
    404,
    /No such app.*\/__mockyard\/fixtures/,
  ],
  [
    'agco: no token',
    '/agco/api/v2/StringDefinitions',
    {},
    401,
    /Bearer <token> and no Authorization header.*--agco-tokens.*agco\.tokens/,
  ],
  [
    'agco: wrong token',
    '/agco/api/v2/StringDefinitions',
    { authorization: 'Bearer bad' },
    401,
    /bearer token is not accepted/,
  ],
  ['agco: basic', '/agco/api/v2/StringDefinitions', { authorization: 'Basic eA==' }, 401, /is not "Bearer <token>"/],
  ['agco: unknown route', '/agco/api/v2/Nope', { authorization: 'Bearer good-token' }, 404, /StringDefinitions/],
  ['dkan: unknown dataset', '/dkan/datastore/query/no-such-dataset/0', {}, 404, /dkan\.datasets/],
  ['dkan: unknown path', '/dkan/metastore/nope', {}, 404, /datastore.*metastore and search/],
];

describe('mockyard-hint header', () => {
  it.each(cases)('%s', async (_name, url, headers, status, hint) => {
    const res = await app.inject({ url, headers });
    expect(res.statusCode).toBe(status);
    const header = res.headers['mockyard-hint'];
    if (status === 200) {
      expect(header).toBeUndefined();
      return;
    }
    expect(header).toMatch(hint);
    // The hint is only a header: the body is the real service's, with nothing of mockyard in it.
    expect(res.body).not.toContain('__mockyard');
    expect(res.body).not.toContain(String(header));
  });

  it('is absent on success and on mockyard routes', async () => {
    const ok = await app.inject({
      url: '/agco/api/v2/StringDefinitions',
      headers: { authorization: 'Bearer good-token' },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['mockyard-hint']).toBeUndefined();
    const root = await app.inject('/nowhere');
    expect(root.statusCode).toBe(404);
    expect(root.headers['mockyard-hint']).toBeUndefined();
  });

  it('is there on an area served at the root of its own port, and readable by browsers', async () => {
    const dkan = await buildApp(config, stores, { only: AREAS.find((a) => a.name === 'dkan')! });
    try {
      const res = await dkan.inject({
        url: '/datastore/query/no-such-dataset/0',
        headers: { origin: 'http://localhost:3000' },
      });
      expect(res.statusCode).toBe(404);
      expect(res.headers['mockyard-hint']).toMatch(/dkan\.datasets/);
      expect(String(res.headers['access-control-expose-headers'])).toContain('mockyard-hint');
    } finally {
      await dkan.close();
    }
  });
});
