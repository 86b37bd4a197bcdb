// App Center on scenario data: exactly the releases given, published_only and scope=tester with the scenario's users.
import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { expectContract } from '../helpers/contract.js';
import { inScenario, putScenario } from './helpers.js';

const { app } = await testApp();
const OP = 'releases_list';

const threeReleases = {
  appcenter: {
    users: [
      { name: 'owner', token: 'owner-token' },
      { name: 'tina', token: 'tina-token', groups: ['acme/Shop/Testers'] },
      { name: 'outsider', token: 'outsider-token' },
    ],
    apps: [
      {
        owner: 'acme',
        name: 'Shop',
        groups: [
          { name: 'Staff', members: ['owner'] },
          { name: 'Testers' },
          { name: 'Retired', deleted: true, members: ['tina'] },
        ],
        releases: [
          {
            id: 1,
            version: '100',
            short_version: '1.0.0',
            uploaded_at: '2025-01-10T09:00:00Z',
            distribution_groups: [{ name: 'Staff' }, { name: 'Testers' }],
          },
          { id: 2, version: '101', short_version: '1.0.1', uploaded_at: '2025-02-10T09:00:00Z' },
          {
            id: 3,
            version: '102',
            short_version: '1.1.0',
            uploaded_at: '2025-03-10T09:00:00Z',
            distribution_groups: [{ name: 'Retired' }],
          },
        ],
      },
    ],
    organizations: [{ name: 'acme', members: ['owner'] }],
  },
};

async function releases(scenario: string, token: string, query = '') {
  const res = await app.inject({
    url: `/appcenter/v0.1/apps/acme/Shop/releases${query}`,
    headers: inScenario(scenario, { 'x-api-token': token }),
  });
  expectContract(OP, res);
  return res;
}

describe('App Center in a scenario', () => {
  it("answers exactly the scenario's releases, newest first, with computed destinations", async () => {
    const created = await putScenario(app, 'three-releases', threeReleases);
    expect(created.json.counts).toEqual({ appcenter: { users: 3, apps: 1, releases: 3 } });
    const res = await releases('three-releases', 'owner-token');
    expect(res.statusCode).toBe(200);
    const list = res.json() as {
      id: number;
      short_version: string;
      uploaded_at: string;
      distribution_groups: { name: string; id: string; is_latest: boolean }[];
      destinations: unknown[];
    }[];
    expect(list.map((r) => r.id)).toEqual([3, 2, 1]);
    expect(list[2]!.uploaded_at).toBe('2025-01-10T09:00:00.000Z');
    // The deleted group is not shown; the live ones get a stable id and is_latest.
    expect(list[0]!.distribution_groups).toEqual([]);
    expect(list[2]!.distribution_groups.map((g) => [g.name, g.is_latest])).toEqual([
      ['Staff', true],
      ['Testers', true],
    ]);
    expect(list[2]!.distribution_groups[0]!.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(list[2]!.destinations).toHaveLength(2);
  });

  it('published_only drops the release that was never distributed, and keeps one sent only to a deleted group', async () => {
    const res = await releases('three-releases', 'owner-token', '?published_only=true');
    expect((res.json() as { id: number }[]).map((r) => r.id)).toEqual([3, 1]);
  });

  it('scope=tester keeps what reached the caller through a live group (membership given on the user)', async () => {
    const res = await releases('three-releases', 'tina-token', '?scope=tester');
    expect((res.json() as { id: number }[]).map((r) => r.id)).toEqual([1]);
    // tina sees the app through the Testers group only; the owner's org membership gives owner everything.
    expect((await releases('three-releases', 'tina-token')).json()).toHaveLength(3);
    expect(
      (await releases('three-releases', 'owner-token', '?scope=tester')).json().map((r: { id: number }) => r.id),
    ).toEqual([1]);
  });

  it("uses the scenario's users: an outsider gets 404, an unknown token 401, and generated tokens do not work", async () => {
    expect((await releases('three-releases', 'outsider-token')).statusCode).toBe(404);
    expect((await releases('three-releases', 'nobody')).statusCode).toBe(401);
    expect((await releases('three-releases', 'a11ce0000000000000000000000000000000a11c')).statusCode).toBe(401);
  });

  it('works with the /scenarios/{name} path prefix too', async () => {
    const res = await app.inject({
      url: '/scenarios/three-releases/appcenter/v0.1/apps/acme/Shop/releases?top=1',
      headers: { 'x-api-token': 'owner-token' },
    });
    expectContract(OP, res);
    expect(res.json().map((r: { id: number }) => r.id)).toEqual([3]);
  });

  it('is isolated: generated data outside the scenario, and a second scenario in parallel', async () => {
    const one = {
      appcenter: {
        ...threeReleases.appcenter,
        apps: [
          { ...threeReleases.appcenter.apps[0]!, releases: threeReleases.appcenter.apps[0]!.releases.slice(0, 1) },
        ],
      },
    };
    await putScenario(app, 'one-release', one);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => releases(i % 2 === 0 ? 'three-releases' : 'one-release', 'owner-token')),
    );
    results.forEach((res, i) => expect(res.json()).toHaveLength(i % 2 === 0 ? 3 : 1));
    // Without a scenario: the generated world, where acme/Shop does not exist and alice's token works.
    const generated = await app.inject({
      url: '/appcenter/v0.1/apps/acme/Shop/releases',
      headers: { 'x-api-token': 'owner-token' },
    });
    expect(generated.statusCode).toBe(401);
    const alice = await app.inject({
      url: '/appcenter/v0.1/apps/alice/Pocket-Notes/releases',
      headers: { 'x-api-token': 'a11ce0000000000000000000000000000000a11c' },
    });
    expectContract(OP, alice);
    expect(alice.json().length).toBeGreaterThan(3);
  });

  it('gives byte-identical answers for the same body', async () => {
    await putScenario(app, 'three-again', threeReleases);
    const a = await releases('three-releases', 'owner-token', '?published_only=true');
    const b = await releases('three-again', 'owner-token', '?published_only=true');
    expect(b.body).toBe(a.body);
  });

  it("lists the scenario's tokens with their live groups in the fixture catalog, many users or few", async () => {
    await putScenario(app, 'three-catalog', threeReleases);
    const catalog = await app.inject({ url: '/__mockyard/fixtures', headers: inScenario('three-catalog') });
    expect(catalog.statusCode).toBe(200);
    // A deleted group is not listed; a user in none has none.
    expect(catalog.json().appcenter.tokens).toEqual([
      { token: 'owner-token', user: 'owner', groups: ['acme/Shop/Staff'] },
      { token: 'tina-token', user: 'tina', groups: ['acme/Shop/Testers'] },
      { token: 'outsider-token', user: 'outsider', groups: [] },
    ]);
    // Thousands of members: listed in one pass (a subquery per token was quadratic: 7.4 s at 20,000).
    const users = Array.from({ length: 5000 }, (_, i) => ({ name: `u${i}`, token: `t${i}`, groups: ['o/A/G'] }));
    const many = {
      appcenter: {
        users: [...users, { name: 'o', token: 'o-token' }],
        apps: [{ owner: 'o', name: 'A', groups: [{ name: 'G' }] }],
      },
    };
    await putScenario(app, 'many-members', many);
    const big = await app.inject({ url: '/__mockyard/fixtures', headers: inScenario('many-members') });
    const tokens = big.json().appcenter.tokens as { token: string; groups: string[] }[];
    expect(tokens).toHaveLength(5001);
    expect(tokens.filter((t) => t.groups[0] === 'o/A/G')).toHaveLength(5000);
  });
});
