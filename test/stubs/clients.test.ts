// WireMock's own client libraries, unchanged, drive mockyard: create stubs, call them, verify, reset.
import { beforeAll, describe, expect, it } from 'vitest';
import { WireMock } from 'wiremock-captain';
import { WireMockRestClient } from 'wiremock-rest-client';
import { testApp } from '../helpers/app.js';

const open = await testApp();
const guarded = await testApp({ adminToken: 'admin-secret' });
let openUrl = '';
let guardedUrl = '';

beforeAll(async () => {
  openUrl = await open.app.listen({ port: 0, host: '127.0.0.1' });
  guardedUrl = await guarded.app.listen({ port: 0, host: '127.0.0.1' });
});

describe('wiremock-captain', () => {
  it('registers a stub, sees the call, lists requests and clears everything', async () => {
    const mock = new WireMock(openUrl);
    await mock.clearAll();
    await mock.register(
      { method: 'POST', endpoint: '/orders', body: { sku: 'A-1', qty: 2 } },
      { status: 201, body: { id: 77 }, headers: { 'Content-Type': 'application/json' } },
    );
    const res = await fetch(`${openUrl}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ qty: 2, sku: 'A-1' }),
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ id: 77 });
    const calls = (await mock.getRequestsForAPI('POST', '/orders')) as { request: { body: string } }[];
    expect(calls).toHaveLength(1);
    expect(JSON.parse(calls[0]!.request.body)).toEqual({ qty: 2, sku: 'A-1' });
    expect(await mock.getAllMappings()).toHaveLength(1);
    await mock.clearAll();
    expect(await mock.getAllMappings()).toHaveLength(0);
    expect(await mock.getAllRequests()).toHaveLength(0);
    expect((await fetch(`${openUrl}/orders`, { method: 'POST' })).status).toBe(404);
  });

  it('walks a scenario it registered', async () => {
    const mock = new WireMock(openUrl);
    await mock.clearAll();
    const request = { method: 'GET' as const, endpoint: '/job' };
    await mock.register(
      request,
      { status: 200, body: { state: 'queued' } },
      {
        scenario: { scenarioName: 'job', requiredScenarioState: 'Started', newScenarioState: 'done' },
      },
    );
    await mock.register(
      request,
      { status: 200, body: { state: 'done' } },
      {
        scenario: { scenarioName: 'job', requiredScenarioState: 'done' },
      },
    );
    expect(await (await fetch(`${openUrl}/job`)).json()).toEqual({ state: 'queued' });
    expect(await (await fetch(`${openUrl}/job`)).json()).toEqual({ state: 'done' });
    expect((await mock.getAllScenarios())[0]).toMatchObject({ name: 'job', state: 'done' });
    await mock.resetAllScenarios();
    expect(await (await fetch(`${openUrl}/job`)).json()).toEqual({ state: 'queued' });
  });
});

describe('wiremock-rest-client, behind --admin-token', () => {
  const client = () =>
    new WireMockRestClient(`${guardedUrl}`, {
      logLevel: 'silent',
      continueOnFailure: true,
      headers: { authorization: 'Bearer admin-secret' },
    });

  it('creates, verifies with a request pattern and resets', async () => {
    const wm = client();
    await wm.global.resetAll();
    const created = await wm.mappings.createMapping({
      request: { method: 'GET', urlPath: '/v2/search/car/active', queryParameters: { make: { equalTo: 'ford' } } },
      response: { status: 200, jsonBody: { num_found: 1 }, headers: { 'Content-Type': 'application/json' } },
    });
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    // The MarketCheck prefix: the stub sees /v2/search/car/active, as api.marketcheck.com would.
    const hit = await fetch(`${guardedUrl}/marketcheck/search/car/active?make=ford&api_key=k`);
    expect(await hit.json()).toEqual({ num_found: 1 });
    const count = await wm.requests.getCount({ method: 'GET', urlPath: '/v2/search/car/active' });
    expect(count.count).toBe(1);
    const found = await wm.requests.findRequests({ method: 'GET', urlPathPattern: '/v2/search/.*' });
    expect(found.requests[0].url).toBe('/v2/search/car/active?make=ford&api_key=***');
    expect((await wm.mappings.getAllMappings()).mappings).toHaveLength(1);
    await wm.global.resetAll();
    expect((await wm.mappings.getAllMappings()).mappings).toHaveLength(0);
    expect((await wm.requests.getAllRequests()).requests).toHaveLength(0);
  });

  it('is refused without the token', async () => {
    const res = await fetch(`${guardedUrl}/__admin/mappings`);
    expect(res.status).toBe(401);
  });
});
