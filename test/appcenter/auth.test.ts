import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { expectContract } from '../helpers/contract.js';
import { allApps, expectAppCenterError, list, releasesUrl, tokenOf, visibleApps, world } from './helpers.js';

const { app, store } = await testApp();
const url = releasesUrl('contoso', 'Field-Service-Android');

describe('appcenter auth: X-API-Token', () => {
  it('answers 401 in the gateway shape without a token', async () => {
    expectAppCenterError(await app.inject({ url }), 401, /^Unauthorized\. /);
  });

  it('answers 401 for an unknown or empty token, and for a token sent in another header or the query', async () => {
    for (const headers of [
      { 'X-API-Token': 'f'.repeat(40) },
      { 'X-API-Token': '' },
      { Authorization: `Bearer ${tokenOf('alice')}` },
    ]) {
      expectAppCenterError(await app.inject({ url, headers }), 401);
    }
    expectAppCenterError(await app.inject({ url: `${url}?X-API-Token=${tokenOf('alice')}` }), 401);
  });

  it('accepts the header name in any case (the CLI sends x-api-token)', async () => {
    for (const name of ['X-API-Token', 'x-api-token', 'X-Api-Token', 'X-API-TOKEN']) {
      const res = await app.inject({ url, headers: { [name]: tokenOf('alice') } });
      expectContract('releases_list', res);
      expect(res.statusCode).toBe(200);
    }
  });

  it('accepts every token of a user', async () => {
    for (const token of world.users.find((u) => u.name === 'bob')!.tokens) {
      const res = await app.inject({ url, headers: { 'x-api-token': token } });
      expect(res.statusCode).toBe(200);
    }
  });

  it('checks the token before the query: a bad token with a bad top is a 401', async () => {
    expectAppCenterError(await app.inject({ url: `${url}?top=zero`, headers: { 'X-API-Token': 'nope' } }), 401);
  });

  it('gives a fresh correlation id per request', async () => {
    const a = expectAppCenterError(await app.inject({ url }), 401);
    const b = expectAppCenterError(await app.inject({ url }), 401);
    expect(a.message).not.toBe(b.message);
  });
});

describe('appcenter visibility and 404', () => {
  it("lets each user see exactly their own apps, their organizations' apps and apps with a live group they are in", async () => {
    for (const user of world.users) {
      const visible = visibleApps(store, user.name);
      for (const { owner, app: appName } of allApps) {
        const res = await app.inject({ url: releasesUrl(owner, appName), headers: { 'X-API-Token': user.tokens[0]! } });
        expectContract('releases_list', res);
        expect(res.statusCode, `${user.name} -> ${owner}/${appName}`).toBe(
          visible.has(`${owner}/${appName}`) ? 200 : 404,
        );
        if (res.statusCode === 404) expectAppCenterError(res, 404, /^Not found\. /);
      }
    }
  });

  it('covers every way in: owner, organization, live group; and none through a deleted group', () => {
    expect(visibleApps(store, 'alice').has('alice/Pocket-Notes')).toBe(true);
    expect(visibleApps(store, 'bob').has('contoso/Field-Service-iOS')).toBe(true);
    expect(visibleApps(store, 'carol').has('fabrikam/Warehouse-Scanner')).toBe(true);
    // carol was only in Field-Service-iOS's "Pilot", deleted since; dave and frank only in deleted groups.
    expect(visibleApps(store, 'carol').has('contoso/Field-Service-iOS')).toBe(false);
    expect(visibleApps(store, 'dave').size).toBe(0);
    expect(visibleApps(store, 'frank').size).toBe(0);
  });

  it('answers 404 for an unknown owner or app, and matches names exactly', async () => {
    for (const [owner, appName] of [
      ['nobody', 'Field-Service-Android'],
      ['contoso', 'Nope'],
      ['fabrikam', 'Field-Service-Android'],
      ['Contoso', 'Field-Service-Android'],
    ] as const) {
      expectAppCenterError(
        await app.inject({ url: releasesUrl(owner, appName), headers: { 'X-API-Token': tokenOf('alice') } }),
        404,
      );
    }
  });

  it('answers unknown paths and methods under /appcenter with the same 404 body, token or not', async () => {
    for (const req of [
      { url: '/appcenter/v0.1/apps/contoso/Field-Service-Android/no-such-collection' },
      {
        url: '/appcenter/v0.1/apps/contoso/Field-Service-Android/releases/1/no-such-part',
        headers: { 'X-API-Token': tokenOf('alice') },
      },
      { url: '/appcenter/nothing-here' },
      { url, method: 'POST' as const, headers: { 'X-API-Token': tokenOf('alice') } },
    ]) {
      const res = await app.inject(req);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ statusCode: 404, code: 'Not Found' });
      expect(res.json().message).toMatch(/^Not found\. Correlation ID: [0-9a-f-]{36}$/);
    }
  });

  it('hides an invisible app even with valid filters', async () => {
    expectAppCenterError(
      await app.inject({
        url: releasesUrl('contoso', 'Field-Service-iOS', { top: 1 }),
        headers: { 'X-API-Token': tokenOf('carol') },
      }),
      404,
    );
    expect((await list(app, 'contoso', 'Field-Service-iOS', { top: 1 }, 'bob')).length).toBe(1);
  });
});
