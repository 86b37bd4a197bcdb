import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import {
  allApps,
  expectAppCenterError,
  list,
  newestFirst,
  rawReleases,
  releasesUrl,
  tokenOf,
  visibleApps,
  world,
} from './helpers.js';

const { app, store } = await testApp();
/** An app every named user can list, with a viewer for it. */
const viewer = (owner: string) => (owner === 'fabrikam' ? 'erin' : 'alice');

describe('appcenter releases_list: items', () => {
  it('lists every release of the app, newest first (uploaded_at, then id)', async () => {
    for (const { owner, app: appName } of allApps) {
      const got = await list(app, owner, appName, {}, viewer(owner));
      const raw = newestFirst(rawReleases(store, owner, appName));
      expect(got.map((r) => r.id)).toEqual(raw.map((r) => r.id));
      for (let i = 1; i < got.length; i++) {
        const [a, b] = [got[i - 1]!, got[i]!];
        expect(a.uploaded_at > b.uploaded_at || (a.uploaded_at === b.uploaded_at && a.id > b.id)).toBe(true);
      }
    }
  });

  it('has fixtures where id order and upload order disagree, and uploads that share a timestamp', () => {
    const raw = allApps.flatMap(({ owner, app: a }) => newestFirst(rawReleases(store, owner, a)));
    expect(raw.some((r, i) => i > 0 && raw[i - 1]!.uploaded_at === r.uploaded_at)).toBe(true);
    const android = newestFirst(rawReleases(store, 'contoso', 'Field-Service-Android'));
    expect(android.map((r) => r.id)).not.toEqual([...android].sort((a, b) => b.id - a.id).map((r) => r.id));
  });

  it('shows live groups and stores on each release, never deleted groups, with destinations merging both', async () => {
    for (const { owner, app: appName } of allApps) {
      const raw = new Map(rawReleases(store, owner, appName).map((r) => [r.id, r]));
      for (const rel of await list(app, owner, appName, {}, viewer(owner))) {
        const r = raw.get(rel.id)!;
        expect(rel.distribution_groups!.map((g) => g.id).sort()).toEqual(
          r.groups
            .filter((g) => !g.deleted)
            .map((g) => g.id)
            .sort(),
        );
        expect(rel.distribution_stores!.map((s) => s.id).sort()).toEqual([...r.stores].sort());
        expect(rel.destinations!.map((d) => d.id)).toEqual(
          [...rel.distribution_groups!, ...rel.distribution_stores!].map((d) => d.id),
        );
        for (const d of rel.destinations!) {
          expect(d.destination_type).toBe(rel.distribution_groups!.some((g) => g.id === d.id) ? 'group' : 'store');
          expect(d.display_name).toBe(d.name);
        }
        expect(rel.uploaded_at).toBe(new Date(rel.uploaded_at).toISOString());
      }
    }
  });

  it('marks is_latest on exactly the newest release of each group and store', async () => {
    const rels = await list(app, 'contoso', 'Field-Service-Android');
    const seen = new Set<string>();
    for (const rel of rels) {
      for (const d of [...rel.distribution_groups!, ...rel.distribution_stores!]) {
        expect(d.is_latest, `${rel.id} ${d.name}`).toBe(!seen.has(d.id));
        seen.add(d.id);
      }
    }
  });

  it('carries version, short_version, origin, enabled and build info as generated', async () => {
    const rels = await list(app, 'contoso', 'Field-Service-Android');
    expect(new Set(rels.map((r) => r.origin))).toEqual(new Set(['appcenter', 'hockeyapp']));
    expect(rels.some((r) => !r.enabled)).toBe(true);
    expect(rels.some((r) => r.build?.commit_hash?.match(/^[0-9a-f]{40}$/))).toBe(true);
    const legacy = await list(app, 'fabrikam', 'Legacy-Kiosk', {}, 'erin');
    expect(legacy.every((r) => r.origin === 'hockeyapp' && r.build === undefined)).toBe(true);
  });
});

describe('appcenter releases_list: filters', () => {
  it('published_only=true drops never-distributed releases and keeps those whose groups were deleted', async () => {
    let keptDeletedOnly = 0;
    for (const { owner, app: appName } of allApps) {
      const raw = rawReleases(store, owner, appName);
      const expected = newestFirst(raw.filter((r) => r.groups.length > 0 || r.stores.length > 0)).map((r) => r.id);
      const got = await list(app, owner, appName, { published_only: true }, viewer(owner));
      expect(got.map((r) => r.id)).toEqual(expected);
      expect(expected.length).toBeLessThan(raw.length);
      for (const rel of got) {
        const r = raw.find((x) => x.id === rel.id)!;
        if (r.stores.length === 0 && r.groups.every((g) => g.deleted)) {
          keptDeletedOnly += 1;
          expect(rel.destinations).toEqual([]);
        }
      }
      expect(await list(app, owner, appName, { published_only: false }, viewer(owner))).toHaveLength(raw.length);
    }
    expect(keptDeletedOnly).toBeGreaterThan(0);
  });

  it('scope=tester keeps only releases distributed to a live group the caller is in', async () => {
    let checked = 0;
    for (const user of world.users) {
      for (const key of visibleApps(store, user.name)) {
        const [owner, appName] = key.split('/') as [string, string];
        const expected = newestFirst(
          rawReleases(store, owner, appName).filter((r) =>
            r.groups.some((g) => !g.deleted && g.members.includes(user.name)),
          ),
        );
        const got = await list(app, owner, appName, { scope: 'tester' }, user.name);
        expect(
          got.map((r) => r.id),
          `${user.name} ${key}`,
        ).toEqual(expected.map((r) => r.id));
        checked += got.length;
      }
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('scope=tester counts only live groups (membership in a deleted group does not count)', async () => {
    // carol was in Field-Service-Android's "Alpha (retired)" group, deleted since.
    const raw = rawReleases(store, 'contoso', 'Field-Service-Android');
    const carolDeletedOnly = raw.filter(
      (r) =>
        r.groups.some((g) => g.deleted && g.members.includes('carol')) &&
        !r.groups.some((g) => !g.deleted && g.members.includes('carol')),
    );
    expect(carolDeletedOnly.length).toBeGreaterThan(0);
    const got = new Set(
      (await list(app, 'contoso', 'Field-Service-Android', { scope: 'tester' }, 'carol')).map((r) => r.id),
    );
    for (const r of carolDeletedOnly) expect(got.has(r.id)).toBe(false);
  });

  it('treats any other scope value as no scope', async () => {
    const all = await list(app, 'contoso', 'Field-Service-Android', {}, 'carol');
    for (const scope of ['', 'Tester', 'all', 'member']) {
      expect(await list(app, 'contoso', 'Field-Service-Android', { scope }, 'carol')).toEqual(all);
    }
  });

  it('releaseId returns only that release, and an empty array when the app has no such id', async () => {
    const raw = rawReleases(store, 'contoso', 'Field-Service-Android');
    const ids = new Set(raw.map((r) => r.id));
    const all = await list(app, 'contoso', 'Field-Service-Android');
    for (const r of raw.slice(0, 5)) {
      expect(await list(app, 'contoso', 'Field-Service-Android', { releaseId: r.id })).toEqual(
        all.filter((x) => x.id === r.id),
      );
    }
    const gap = [...Array(Math.max(...ids)).keys()].map((i) => i + 1).find((i) => !ids.has(i));
    expect(gap, 'fixtures have deleted release ids').toBeDefined();
    for (const missing of [gap!, Math.max(...ids) + 1, 0, -3, 2.5]) {
      expect(await list(app, 'contoso', 'Field-Service-Android', { releaseId: missing })).toEqual([]);
    }
  });

  it('top limits the newest-first list, and combines with the other filters', async () => {
    const all = await list(app, 'contoso', 'Field-Service-Android', {}, 'bob');
    for (const top of [1, 3, all.length, all.length + 10, 1e12]) {
      expect(await list(app, 'contoso', 'Field-Service-Android', { top }, 'bob')).toEqual(all.slice(0, top));
    }
    const tester = await list(
      app,
      'contoso',
      'Field-Service-Android',
      { scope: 'tester', published_only: true },
      'bob',
    );
    expect(
      await list(app, 'contoso', 'Field-Service-Android', { scope: 'tester', published_only: true, top: 2 }, 'bob'),
    ).toEqual(tester.slice(0, 2));
    const one = tester[1]!;
    expect(
      await list(app, 'contoso', 'Field-Service-Android', { scope: 'tester', releaseId: one.id, top: 5 }, 'bob'),
    ).toEqual([one]);
  });

  it('ignores unknown query parameters', async () => {
    const all = await list(app, 'alice', 'Pocket-Notes');
    expect(await list(app, 'alice', 'Pocket-Notes', { foo: 'bar', $skip: 3 })).toEqual(all);
  });
});

describe('appcenter releases_list: 400 naming the parameter', () => {
  const url = (q: string) => `${releasesUrl('alice', 'Pocket-Notes')}?${q}`;
  const headers = { 'X-API-Token': tokenOf('alice') };

  it.each([
    ['published_only=yes', 'published_only'],
    ['published_only=1', 'published_only'],
    ['published_only=', 'published_only'],
    ['top=abc', 'top'],
    ['top=0', 'top'],
    ['top=-2', 'top'],
    ['top=2.5', 'top'],
    ['top=', 'top'],
    ['top=1&top=2', 'top'],
    ['releaseId=latest', 'releaseId'],
    ['releaseId=12abc', 'releaseId'],
    ['scope=tester&scope=x', 'scope'],
  ])('%s -> 400 naming %s', async (q, name) => {
    const body = expectAppCenterError(await app.inject({ url: url(q), headers }), 400);
    expect(body.message).toContain(`query parameter '${name}'`);
  });

  it('accepts true/false and plain numbers', async () => {
    for (const q of ['published_only=true', 'published_only=false', 'top=1', 'top=5', 'releaseId=3']) {
      const res = await app.inject({ url: url(q), headers });
      expect(res.statusCode, q).toBe(200);
    }
  });

  it('answers an unknown app before a bad parameter', async () => {
    expectAppCenterError(await app.inject({ url: `${releasesUrl('alice', 'Nope')}?top=0`, headers }), 404);
  });
});
