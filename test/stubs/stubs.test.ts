// Stubs in WireMock's format: matching, one world with the areas, the /__admin API, bad mappings.
import { beforeEach, describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { addMapping } from '../helpers/stubs.js';

const { app } = await testApp({ journalSize: 1000 });

const admin = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) =>
  app.inject({
    method,
    url: `/__admin${url}`,
    payload: payload as object,
    headers: { 'content-type': 'application/json' },
  });

const stub = async (mapping: object) => ({ id: await addMapping(app, mapping) });

beforeEach(async () => {
  await admin('POST', '/reset');
});

describe('matching as WireMock means it', () => {
  it('matches url, urlPath, urlPattern and urlPathPattern', async () => {
    await stub({ request: { method: 'GET', url: '/u?a=1' }, response: { status: 201 } });
    await stub({ request: { method: 'GET', urlPath: '/p' }, response: { status: 202 } });
    await stub({ request: { method: 'GET', urlPattern: '/re/[0-9]+\\?x=.*' }, response: { status: 203 } });
    await stub({ request: { method: 'GET', urlPathPattern: '/rp/[a-z]+' }, response: { status: 204 } });
    expect((await app.inject('/u?a=1')).statusCode).toBe(201);
    expect((await app.inject('/u?a=2')).statusCode).toBe(404);
    expect((await app.inject('/p?anything=1')).statusCode).toBe(202);
    expect((await app.inject('/re/12?x=y')).statusCode).toBe(203);
    expect((await app.inject('/re/12')).statusCode).toBe(404);
    expect((await app.inject('/rp/abc?q=1')).statusCode).toBe(204);
    expect((await app.inject('/rp/ABC')).statusCode).toBe(404);
  });

  it('matches query parameters, headers, cookies, basic auth and bodies', async () => {
    await stub({
      request: {
        method: 'POST',
        urlPath: '/all',
        queryParameters: { q: { equalTo: 'Cars', caseInsensitive: true }, gone: { absent: true } },
        headers: { 'X-Trace': { matches: 't-[0-9]+' }, Accept: { contains: 'json' } },
        cookies: { session: { doesNotMatch: 'expired.*' } },
        basicAuthCredentials: { username: 'ann', password: 'pw' },
        bodyPatterns: [
          { equalToJson: { a: [1, 2], b: 'x' }, ignoreArrayOrder: true, ignoreExtraElements: true },
          { matchesJsonPath: '$.a[?(@ == 2)]' },
          { matchesJsonPath: { expression: '$.b', equalTo: 'x' } },
        ],
      },
      response: { status: 200, body: 'all matched' },
    });
    const good = {
      method: 'POST' as const,
      url: '/all?q=cars',
      headers: {
        'x-trace': 't-42',
        accept: 'application/json',
        cookie: 'session=live1',
        authorization: `Basic ${Buffer.from('ann:pw').toString('base64')}`,
        'content-type': 'application/json',
      },
      payload: JSON.stringify({ b: 'x', a: [2, 1], c: true }),
    };
    const ok = await app.inject(good);
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toBe('all matched');
    expect(ok.headers['content-type']).toBeUndefined();
    const misses = [
      { url: '/all?q=cars&gone=1' },
      { headers: { ...good.headers, 'x-trace': 't-x' } },
      { headers: { ...good.headers, cookie: 'session=expired-1' } },
      { headers: { ...good.headers, authorization: 'Basic eA==' } },
      { payload: JSON.stringify({ a: [1, 3], b: 'x' }) },
      { payload: JSON.stringify({ a: [1, 2], b: 'y' }) },
    ];
    for (const miss of misses)
      expect((await app.inject({ ...good, ...miss })).statusCode, JSON.stringify(miss)).toBe(404);
  });

  it('prefers the highest priority, then the newest mapping', async () => {
    await stub({ request: { urlPath: '/order' }, response: { body: 'old' } });
    await stub({ request: { urlPath: '/order' }, response: { body: 'new' } });
    expect((await app.inject('/order')).body).toBe('new');
    await stub({ priority: 1, request: { urlPathPattern: '/ord.*' }, response: { body: 'first' } });
    expect((await app.inject('/order')).body).toBe('first');
  });

  it('and / or combine matchers', async () => {
    await stub({
      request: { urlPath: '/logic', queryParameters: { v: { and: [{ contains: 'a' }, { doesNotMatch: '.*z.*' }] } } },
      response: { status: 200 },
    });
    await stub({
      request: { urlPath: '/either', headers: { 'X-A': { or: [{ equalTo: 'one' }, { absent: true }] } } },
      response: { status: 200 },
    });
    expect((await app.inject('/logic?v=bar')).statusCode).toBe(200);
    expect((await app.inject('/logic?v=baz')).statusCode).toBe(404);
    expect((await app.inject('/either')).statusCode).toBe(200);
    expect((await app.inject({ url: '/either', headers: { 'x-a': 'two' } })).statusCode).toBe(404);
  });

  it('walks a stateful scenario and resets it', async () => {
    const base = { scenarioName: 'cart', request: { method: 'GET', urlPath: '/cart' } };
    await stub({ ...base, requiredScenarioState: 'Started', response: { body: 'empty' } });
    await stub({
      scenarioName: 'cart',
      requiredScenarioState: 'Started',
      newScenarioState: 'full',
      request: { method: 'POST', urlPath: '/cart' },
      response: { status: 201 },
    });
    await stub({ ...base, requiredScenarioState: 'full', response: { body: 'one item' } });
    expect((await app.inject('/cart')).body).toBe('empty');
    expect((await app.inject({ method: 'POST', url: '/cart' })).statusCode).toBe(201);
    expect((await app.inject('/cart')).body).toBe('one item');
    const scenarios = (await admin('GET', '/scenarios')).json<{ scenarios: { name: string; state: string }[] }>();
    expect(scenarios.scenarios).toMatchObject([{ name: 'cart', state: 'full' }]);
    await admin('POST', '/scenarios/reset');
    expect((await app.inject('/cart')).body).toBe('empty');
    expect((await admin('PUT', '/scenarios/cart/state', { state: 'full' })).statusCode).toBe(200);
    expect((await app.inject('/cart')).body).toBe('one item');
  });

  it('sends jsonBody, base64Body and headers', async () => {
    await stub({
      request: { urlPath: '/j' },
      response: {
        status: 200,
        jsonBody: { a: [1] },
        headers: { 'Content-Type': 'application/json', 'X-Many': ['1', '2'] },
      },
    });
    await stub({ request: { urlPath: '/b' }, response: { base64Body: Buffer.from('bytes').toString('base64') } });
    const j = await app.inject('/j');
    expect(j.json()).toEqual({ a: [1] });
    expect(j.headers['x-many']).toEqual(['1', '2']);
    expect((await app.inject('/b')).body).toBe('bytes');
  });

  it("sends a header value's characters past Latin-1 as `?`, as WireMock's Jetty does, instead of failing the answer", async () => {
    await stub({
      request: { urlPath: '/latin' },
      response: { status: 200, headers: { 'X-Text': 'caf\u00e9 \u2603 \u{1F600}', 'X-Ctl': 'a\u0001b' }, body: 'ok' },
    });
    const res = await app.inject('/latin');
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('ok');
    // Latin-1 as it is (é), each UTF-16 unit past it as `?` (the emoji is two).
    expect(Buffer.from(String(res.headers['x-text']), 'latin1').toString('latin1')).toBe('caf\u00e9 ? ??');
    expect(res.headers['x-ctl']).toBe('a?b');
    expect((await app.inject('/__mockyard/health')).statusCode).toBe(200);
  });
});

describe('one world with the areas', () => {
  it('sees an area request as the real service would, and falls through when it does not match', async () => {
    await stub({
      request: {
        method: 'GET',
        urlPath: '/api/1/metastore/schemas/dataset/items/pinned',
        host: { equalTo: 'data.medicaid.gov' },
      },
      response: { status: 200, jsonBody: { pinned: true }, headers: { 'Content-Type': 'application/json' } },
    });
    const pinned = await app.inject('/dkan/metastore/schemas/dataset/items/pinned');
    expect(pinned.statusCode).toBe(200);
    expect(pinned.json()).toEqual({ pinned: true });
    // Not matched: the area answers exactly as without stubs.
    const other = await app.inject('/dkan/metastore/schemas/dataset/items/nope-nope');
    const stubless = await app.inject({ url: '/dkan/metastore/schemas/dataset/items/nope-nope' });
    expect(other.statusCode).toBe(stubless.statusCode);
    expect(other.body).toBe(stubless.body);
    // The host matcher narrows to one area: the same path under another area is not matched.
    await stub({ request: { urlPath: '/only-archive', host: { equalTo: 'archive.org' } }, response: { status: 299 } });
    expect((await app.inject('/archive/only-archive')).statusCode).toBe(299);
    expect((await app.inject('/appcenter/only-archive')).statusCode).not.toBe(299);
  });

  it('journals stub answers in the shared journal', async () => {
    const { id } = await stub({ request: { urlPath: '/v2/stubbed' }, response: { status: 200, body: 'x' } });
    await app.inject('/marketcheck/stubbed?api_key=secret123');
    const mine = await app.inject('/__mockyard/requests?area=marketcheck');
    expect(mine.json().requests[0]).toMatchObject({ status: 200, area: 'marketcheck' });
    const wm = (await admin('GET', '/requests')).json<{
      requests: { request: { url: string }; stubMapping: { id: string }; wasMatched: boolean }[];
    }>();
    expect(wm.requests[0]).toMatchObject({ wasMatched: true, stubMapping: { id } });
    expect(wm.requests[0]!.request.url).toBe('/v2/stubbed?api_key=***');
    const count = await admin('POST', '/requests/count', {
      method: 'GET',
      urlPath: '/v2/stubbed',
      queryParameters: { api_key: { equalTo: 'secret123' } },
    });
    expect(count.json()).toMatchObject({ count: 1 });
  });

  it('masks cookie values in the logged requests, as it masks the Cookie header', async () => {
    await stub({ request: { urlPath: '/v2/cookied' }, response: { status: 200 } });
    await app.inject({ url: '/marketcheck/cookied', headers: { cookie: 'sid=topsecretcookie; theme=dark' } });
    const found = await admin('POST', '/requests/find', { method: 'GET', urlPath: '/v2/cookied' });
    const [logged] = found.json<{ requests: { headers: Record<string, string>; cookies: Record<string, string> }[] }>()
      .requests;
    expect(logged?.headers.cookie).toBe('***');
    expect(logged?.cookies).toEqual({ sid: '***', theme: '***' });
    expect(found.body).not.toContain('topsecretcookie');
  });

  it("refuses a body over 1 MiB with 413: mockyard's own error body off the areas", async () => {
    await stub({ request: { method: 'POST', urlPath: '/big' }, response: { status: 200 } });
    const res = await app.inject({ method: 'POST', url: '/big', payload: 'x'.repeat(1024 * 1024 + 1) });
    expect(res.statusCode).toBe(413);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.json()).toEqual({
      statusCode: 413,
      error: 'Payload Too Large',
      message: 'The request body is larger than 1048576 bytes.',
    });
  });
});

describe('admin API and bad mappings', () => {
  it('lists, gets, edits and deletes mappings', async () => {
    const { id } = await stub({ request: { urlPath: '/crud' }, response: { status: 200 } });
    expect((await admin('GET', `/mappings/${id}`)).json()).toMatchObject({ id, request: { urlPath: '/crud' } });
    await admin('PUT', `/mappings/${id}`, { request: { urlPath: '/crud' }, response: { status: 418 } });
    expect((await app.inject('/crud')).statusCode).toBe(418);
    expect((await admin('GET', '/mappings')).json()).toMatchObject({ meta: { total: 1 } });
    expect((await admin('DELETE', `/mappings/${id}`)).statusCode).toBe(200);
    expect((await admin('GET', `/mappings/${id}`)).statusCode).toBe(404);
  });

  it('finds and removes mappings and serve events by metadata, as wiremock-rest-client asks', async () => {
    const tagged = await stub({ request: { urlPath: '/tagged' }, response: { status: 200 }, metadata: { team: 'a' } });
    await stub({ request: { urlPath: '/other' }, response: { status: 200 }, metadata: { team: 'b' } });
    await app.inject('/tagged');
    await app.inject('/other');
    const byTeam = { matchesJsonPath: { expression: '$.team', equalTo: 'a' } };
    const found = await admin('POST', '/mappings/find-by-metadata', byTeam);
    expect(found.json().mappings.map((m: { id: string }) => m.id)).toEqual([tagged.id]);
    const gone = await admin('POST', '/requests/remove-by-metadata', byTeam);
    expect(gone.json().requests).toHaveLength(1);
    expect((await admin('GET', '/requests')).json().requests).toHaveLength(1);
    expect((await admin('POST', '/mappings/remove-by-metadata', byTeam)).statusCode).toBe(200);
    expect((await admin('GET', '/mappings')).json().meta.total).toBe(1);
    expect((await admin('POST', '/mappings/find-by-metadata', { nope: 1 })).statusCode).toBe(422);
  });

  it('refuses a bad mapping with a 422 that names the field, and loses nothing stored', async () => {
    await stub({ request: { urlPath: '/kept' }, response: { status: 200 } });
    const bad = await admin('POST', '/mappings', { request: { urlPath: '/x', headers: { A: { equalTo: 5 } } } });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].source.pointer).toBe('/request/headers/A/equalTo');
    const regex = await admin('POST', '/mappings', { request: { urlPattern: '/(?=x)' } });
    expect(regex.statusCode).toBe(422);
    expect(regex.json().errors[0].source.pointer).toBe('/request/urlPattern');
    const importBad = await admin('POST', '/mappings/import', {
      mappings: [{ request: { urlPath: '/a' } }, { response: { status: 9 } }],
    });
    expect(importBad.statusCode).toBe(422);
    expect(importBad.json().errors[0].source.pointer).toBe('/mappings/1/response/status');
    expect((await admin('GET', '/mappings')).json().meta.total).toBe(1);
    expect((await app.inject('/kept')).statusCode).toBe(200);
  });

  it('a catastrophic regex is matched in linear time', async () => {
    await stub({ request: { urlPath: '/evil', headers: { 'X-E': { matches: '(a+)+$' } } }, response: { status: 200 } });
    const res = await app.inject({ url: '/evil', headers: { 'x-e': `${'a'.repeat(50_000)}!` } });
    expect(res.statusCode).toBe(404);
    expect((await app.inject('/__mockyard/health')).statusCode).toBe(200);
  });

  it('matches large bodies (off the event loop) with the same meaning as small ones', async () => {
    const big = `${'a'.repeat(200 * 1024)}-tail`;
    await stub({
      priority: 1,
      request: { method: 'POST', urlPath: '/big', bodyPatterns: [{ matches: '(a+)+-nope' }] },
      response: { status: 201 },
    });
    await stub({
      priority: 2,
      request: {
        method: 'POST',
        urlPath: '/big',
        bodyPatterns: [{ or: [{ matches: 'x.*' }, { and: [{ contains: '-tail' }, { doesNotMatch: '.*b.*' }] }] }],
      },
      response: { status: 202 },
    });
    await stub({ priority: 3, request: { method: 'POST', urlPath: '/big' }, response: { status: 203 } });
    const post = (payload: string) =>
      app.inject({ method: 'POST', url: '/big', payload, headers: { 'content-type': 'text/plain' } });
    // Many at once: each body is matched against its own text.
    const answers = await Promise.all([
      ...Array.from({ length: 12 }, () => post(big)),
      post(`${big}b`),
      post(`${'a'.repeat(200 * 1024)}-nope`),
    ]);
    expect(answers.map((a) => a.statusCode)).toEqual([...Array(12).fill(202), 203, 201]);
  });

  it('lets a large body that no stub matches go on to its area or to the 404', async () => {
    await stub({ request: { method: 'GET', urlPath: '/elsewhere' }, response: { status: 200 } });
    const body = JSON.stringify({ limit: 1, pad: 'x'.repeat(70 * 1024) });
    const dkan = await app.inject({
      method: 'POST',
      url: '/dkan/datastore/query/64a7a500-244b-5d74-a23c-d84bc7dec470/0',
      payload: body,
      headers: { 'content-type': 'application/json' },
    });
    expect(dkan.statusCode).toBe(200);
    expect(dkan.json().results).toHaveLength(1);
    const outside = await app.inject({ method: 'POST', url: '/outside', payload: body });
    expect(outside.statusCode).toBe(404);
  });

  it('reports near misses for unmatched requests', async () => {
    await stub({ request: { method: 'GET', urlPath: '/near' }, response: { status: 200 } });
    await app.inject('/neat');
    const res = await admin('GET', '/requests/unmatched/near-misses');
    const near = res.json<{
      nearMisses: { stubMapping: { request: { urlPath: string } }; matchResult: { distance: number } }[];
    }>();
    expect(near.nearMisses[0]!.stubMapping.request.urlPath).toBe('/near');
    expect(near.nearMisses[0]!.matchResult.distance).toBeGreaterThan(0);
  });
});
