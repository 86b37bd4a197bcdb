// Each documented bound answers a clear 4xx in the area's own shape; just inside it, the request is served.
import { describe, expect, it } from 'vitest';
import { MAX_STRING_IDS } from '../../src/areas/agco/filters.js';
import { LIMITS } from '../../src/areas/dkan/parse.js';
import { MAX_HEADER_BYTES, MAX_QUERY_PARAMETERS, MAX_URL_LENGTH } from '../../src/platform/http/limits.js';
import { testApp } from '../helpers/app.js';
import { deepBracket, deepGroup, enc, errorShapeProblem, loadCatalog, type Area } from './fuzz-lib.js';
import { rawRequest } from './socket.js';

const JOURNAL_SIZE = 25;
const { app, store } = await testApp({ journalSize: String(JOURNAL_SIZE) });
const cat = await loadCatalog(app, store);
await app.listen({ host: '127.0.0.1', port: 0 });
const port = (app.server.address() as { port: number }).port;

const dk = cat.dkan[0]!;
const col = dk.columns[0]!;
const dkan = `/dkan/datastore/query/${dk.datasetId}/${dk.index}?limit=1`;
const agco = { url: '/agco/api/v2/StringDefinitions', headers: { authorization: `Bearer ${cat.agco.tokens[0]}` } };

const bases: Record<Area, string> = {
  archive: `/archive/metadata/${cat.archive[0]!.identifier}`,
  marketcheck: `/marketcheck/popular/cars?api_key=${cat.marketcheck.apiKeys[0]}&car_type=used`,
  appcenter: `/appcenter/v0.1/apps/${cat.appcenter.access[0]!.owner}/${cat.appcenter.access[0]!.app}/releases?top=1`,
  agco: `${agco.url}?limit=1`,
  dkan,
};
const headersFor: Partial<Record<Area, Record<string, string>>> = {
  appcenter: { 'x-api-token': cat.appcenter.access[0]!.token },
  agco: agco.headers,
};

/** `base` padded with an ignored parameter to exactly `length` characters. */
const padded = (base: string, length: number) => {
  const head = `${base}${base.includes('?') ? '&' : '?'}pad=`;
  return head + 'a'.repeat(length - head.length);
};

describe.each(Object.keys(bases) as Area[])('URL length under /%s, over a real socket', (area) => {
  it(`serves a URL of exactly ${MAX_URL_LENGTH} characters`, async () => {
    const res = await rawRequest(port, padded(bases[area], MAX_URL_LENGTH), headersFor[area]);
    expect(res.status).toBe(200);
  });

  it.each([MAX_URL_LENGTH + 1, 20 * 1024, 60 * 1024])(
    'answers %i characters with a 414 in the area shape',
    async (length) => {
      const res = await rawRequest(port, padded(bases[area], length), headersFor[area]);
      expect(res.status).toBe(414);
      expect(errorShapeProblem(area, { statusCode: res.status, headers: res.headers, body: res.body })).toBeUndefined();
    },
  );

  it(`leaves request heads over ${MAX_HEADER_BYTES / 1024} KB to Node, which answers 431`, async () => {
    const res = await rawRequest(port, padded(bases[area], 70 * 1024), headersFor[area]);
    expect(res.status).toBe(431);
  });
});

describe('query parameter count', () => {
  const query = (n: number) => Array.from({ length: n - 1 }, (_, i) => `p${i}=1`).join('&');
  it(`serves ${MAX_QUERY_PARAMETERS} parameters and refuses ${MAX_QUERY_PARAMETERS + 1} with a 400 in the area shape`, async () => {
    for (const area of Object.keys(bases) as Area[]) {
      const base = bases[area];
      const own = base.split('?')[1]?.split('&').length ?? 0;
      const ok = await app.inject({
        url: `${base}${base.includes('?') ? '&' : '?'}${query(MAX_QUERY_PARAMETERS - own + 1)}`,
        headers: headersFor[area],
      });
      expect(ok.statusCode, area).toBe(200);
      const over = await app.inject({
        url: `${base}${base.includes('?') ? '&' : '?'}${query(MAX_QUERY_PARAMETERS - own + 2)}`,
        headers: headersFor[area],
      });
      expect(over.statusCode, area).toBe(400);
      expect(errorShapeProblem(area, over), area).toBeUndefined();
    }
  });
});

describe('DKAN condition trees', () => {
  const schemaError = (res: { statusCode: number; body: string }, keyword: string) => {
    expect(res.statusCode).toBe(400);
    expect(errorShapeProblem('dkan', { ...res, headers: { 'content-type': 'application/json' } })).toBeUndefined();
    expect(JSON.parse(res.body)).toMatchObject({
      message: 'JSON Schema validation failed.',
      status: 400,
      data: { keyword },
    });
  };

  it(`nests groups ${LIMITS.groupDepth} deep and refuses ${LIMITS.groupDepth + 1}, as JSON and in bracket form`, async () => {
    expect((await app.inject(`${dkan}&conditions=${enc(deepGroup(LIMITS.groupDepth, col))}`)).statusCode).toBe(200);
    expect((await app.inject(`${dkan}&${deepBracket(LIMITS.groupDepth, col)}`)).statusCode).toBe(200);
    schemaError(await app.inject(`${dkan}&conditions=${enc(deepGroup(LIMITS.groupDepth + 1, col))}`), 'maxDepth');
    schemaError(await app.inject(`${dkan}&${deepBracket(LIMITS.groupDepth + 1, col)}`), 'maxDepth');
  });

  it('refuses trees far deeper than the bound without exhausting the stack', async () => {
    const json = await app.inject(`${dkan}&conditions=${enc(deepGroup(100, col))}`);
    schemaError(json, 'maxDepth');
    // Bracket keys deeper than qs' depth keep the rest as one literal key: a condition without a property.
    const bracket = await app.inject(`${dkan}&conditions[0]${'[conditions][0]'.repeat(400)}[property]=${col}`);
    expect(bracket.statusCode).toBe(400);
    const arrays = await app.inject(`${dkan}&conditions=${'['.repeat(5000)}${']'.repeat(5000)}`);
    schemaError(arrays, 'type');
  });

  it(`accepts ${LIMITS.conditions} conditions and refuses ${LIMITS.conditions + 1}`, async () => {
    const list = (n: number) =>
      enc(JSON.stringify(Array.from({ length: n }, (_, i) => ({ property: col, value: `v${i}`, operator: '<>' }))));
    expect((await app.inject(`${dkan}&conditions=${list(LIMITS.conditions)}`)).statusCode).toBe(200);
    schemaError(await app.inject(`${dkan}&conditions=${list(LIMITS.conditions + 1)}`), 'maxItems');
  });

  it(`accepts ${LIMITS.listValues} values for "in" and refuses ${LIMITS.listValues + 1}`, async () => {
    const inList = (n: number) =>
      enc(JSON.stringify([{ property: col, operator: 'in', value: Array.from({ length: n }, (_, i) => `${i}`) }]));
    expect((await app.inject(`${dkan}&conditions=${inList(LIMITS.listValues)}`)).statusCode).toBe(200);
    schemaError(await app.inject(`${dkan}&conditions=${inList(LIMITS.listValues + 1)}`), 'maxItems');
  });

  it(`accepts ${LIMITS.sorts} sort keys and refuses ${LIMITS.sorts + 1}`, async () => {
    const sort = (n: number) => Array.from({ length: n }, () => col).join(',');
    expect((await app.inject(`${dkan}&sort=${sort(LIMITS.sorts)}`)).statusCode).toBe(200);
    schemaError(await app.inject(`${dkan}&sort=${sort(LIMITS.sorts + 1)}`), 'maxItems');
  });
});

describe('AGCO stringIds', () => {
  const ids = (n: number) =>
    Array.from({ length: n }, (_, i) => cat.agco.stringIds[i % cat.agco.stringIds.length]).join(',');
  it(`accepts ${MAX_STRING_IDS} ids and refuses ${MAX_STRING_IDS + 1} with an ApiError 400`, async () => {
    expect(
      (await app.inject({ url: `${agco.url}?stringIds=${ids(MAX_STRING_IDS)}`, headers: agco.headers })).statusCode,
    ).toBe(200);
    for (const n of [MAX_STRING_IDS + 1, 500]) {
      const res = await app.inject({ url: `${agco.url}?stringIds=${ids(n)}`, headers: agco.headers });
      expect(res.statusCode).toBe(400);
      expect(errorShapeProblem('agco', res)).toBeUndefined();
      expect(res.json().UserMessage).toContain(`at most ${MAX_STRING_IDS}`);
    }
  });
});

describe('journal size', () => {
  it(`keeps at most --journal-size (${JOURNAL_SIZE}) requests, newest first`, async () => {
    await app.inject({ method: 'DELETE', url: '/__mockyard/requests', headers: { 'x-mockyard-admin': '1' } });
    for (let i = 0; i < JOURNAL_SIZE * 4; i++) await app.inject(`/dkan/datastore/query/x/${i}`);
    const res = await app.inject('/__mockyard/requests?limit=1000000');
    const body = res.json() as { total: number; count: number; requests: { path: string }[] };
    expect(body.total).toBe(JOURNAL_SIZE);
    expect(body.requests).toHaveLength(JOURNAL_SIZE);
    expect(body.requests[0]!.path).toBe(`/dkan/datastore/query/x/${JOURNAL_SIZE * 4 - 1}`);
    expect(body.requests.at(-1)!.path).toBe(`/dkan/datastore/query/x/${JOURNAL_SIZE * 3}`);
  });
});
