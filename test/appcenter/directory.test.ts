import { describe, expect, it } from 'vitest';
import { expectContract } from '../helpers/contract.js';
import { testApp } from '../helpers/app.js';
import { expectAppCenterError, list, newestFirst, rawReleases, tokenOf, visibleApps, world } from './helpers.js';

const { app, store } = await testApp();
const base = '/appcenter/v0.1';

async function get(url: string, user = 'alice', operationId?: string) {
  const res = await app.inject({ url: `${base}${url}`, headers: { 'X-API-Token': tokenOf(user) } });
  if (operationId) expectContract(operationId, res);
  return res;
}

describe('appcenter users_get and apps', () => {
  it('GET /v0.1/user is the token’s user', async () => {
    for (const u of world.users) {
      const res = await get('/user', u.name, 'users_get');
      expect(res.json()).toMatchObject({ name: u.name, display_name: u.display_name, email: u.email });
    }
    expectAppCenterError(await app.inject({ url: `${base}/user` }), 401);
  });

  it('apps_list lists exactly the apps releases_list lets the user read', async () => {
    for (const u of world.users) {
      const res = await get('/apps', u.name, 'apps_list');
      const apps = res.json() as { name: string; owner: { name: string } }[];
      expect(new Set(apps.map((a) => `${a.owner.name}/${a.name}`))).toEqual(visibleApps(store, u.name));
    }
  });

  it('apps_get is the item of apps_list; an invisible app is 404', async () => {
    const [first] = (await get('/apps')).json() as { name: string; owner: { name: string } }[];
    const one = await get(`/apps/${first!.owner.name}/${first!.name}`, 'alice', 'apps_get');
    expect(one.json()).toEqual(first);
    expectAppCenterError(await get('/apps/fabrikam/Warehouse-Scanner', 'dave'), 404);
    expectAppCenterError(await get('/apps/alice/No-Such-App'), 404);
  });
});

describe('appcenter distribution groups', () => {
  const [owner, appName] = ['contoso', 'Field-Service-Android'];
  const appUrl = `/apps/${owner}/${appName}`;

  it('lists the live groups only, and each group reads back by name', async () => {
    const groups = (await get(`${appUrl}/distribution_groups`, 'alice', 'distributionGroups_list')).json() as {
      name: string;
    }[];
    const spec = world.apps.find((a) => a.owner === owner && a.name === appName)!;
    expect(groups.map((g) => g.name).sort()).toEqual(
      spec.groups
        .filter((g) => !g.deleted)
        .map((g) => g.name)
        .sort(),
    );
    for (const g of groups) {
      const one = await get(
        `${appUrl}/distribution_groups/${encodeURIComponent(g.name)}`,
        'alice',
        'distributionGroups_get',
      );
      expect(one.json()).toEqual(g);
    }
    const deleted = spec.groups.find((g) => g.deleted)!.name;
    expectAppCenterError(await get(`${appUrl}/distribution_groups/${encodeURIComponent(deleted)}`), 404);
  });

  it("a group's releases are exactly those distributed to it, the same releases as in releases_list", async () => {
    const all = new Map((await list(app, owner, appName)).map((r) => [r.id, r]));
    const raw = rawReleases(store, owner, appName);
    for (const g of (await get(`${appUrl}/distribution_groups`)).json() as { id: string; name: string }[]) {
      const res = await get(
        `${appUrl}/distribution_groups/${encodeURIComponent(g.name)}/releases`,
        'alice',
        'releases_listByDistributionGroup',
      );
      const got = res.json() as { id: number; version: string; uploaded_at: string }[];
      const expected = newestFirst(raw.filter((r) => r.groups.some((x) => x.id === g.id)));
      expect(got.map((r) => r.id)).toEqual(expected.map((r) => r.id));
      for (const r of got)
        expect([r.version, r.uploaded_at]).toEqual([all.get(r.id)!.version, all.get(r.id)!.uploaded_at]);
      const members = await get(
        `${appUrl}/distribution_groups/${encodeURIComponent(g.name)}/members`,
        'alice',
        'distributionGroups_listUsers',
      );
      expect(members.statusCode).toBe(200);
    }
  });

  it('recent_releases holds the is_latest release of every live group', async () => {
    const got = (await get(`${appUrl}/recent_releases`, 'alice', 'releases_listLatest')).json() as { id: number }[];
    const latest = (await list(app, owner, appName)).filter((r) => r.distribution_groups!.some((g) => g.is_latest));
    expect(got.map((r) => r.id)).toEqual(latest.map((r) => r.id));
  });
});

describe('appcenter releases_getLatestByUser', () => {
  it('a release by id is the release of the list, with its details', async () => {
    const [first, second] = await list(app, 'alice', 'Pocket-Notes');
    for (const r of [first!, second!]) {
      const res = await get(`/apps/alice/Pocket-Notes/releases/${r.id}`, 'alice', 'releases_getLatestByUser');
      expect(res.json()).toMatchObject({ ...r, app_name: 'Pocket-Notes', app_os: 'iOS' });
    }
  });

  it('latest is the newest release distributed to a group the caller is in (scope=tester)', async () => {
    for (const user of ['alice', 'bob', 'carol']) {
      const tester = await list(app, 'contoso', 'Field-Service-Android', { scope: 'tester' }, user);
      const res = await get('/apps/contoso/Field-Service-Android/releases/latest', user, 'releases_getLatestByUser');
      if (tester.length === 0) expectAppCenterError(res, 404);
      else expect((res.json() as { id: number }).id).toBe(tester[0]!.id);
    }
  });

  it('answers 400 for an id that is neither a number nor latest, 404 for an unknown id, 401 without a token', async () => {
    expectAppCenterError(await get('/apps/alice/Pocket-Notes/releases/newest'), 400, /release_id/);
    expectAppCenterError(await get('/apps/alice/Pocket-Notes/releases/99999'), 404);
    expectAppCenterError(await app.inject({ url: `${base}/apps/alice/Pocket-Notes/releases/latest` }), 401);
  });
});
