import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from '../../fixtures/lib/sqlite.js';
import { Faker, base, en } from '@faker-js/faker';
import { describe, expect, it } from 'vitest';
import { appcenterFixtures } from '../../fixtures/appcenter/build.js';
import { REFERENCE_DATE } from '../../fixtures/build.js';
import { testApp } from '../helpers/app.js';
import { allApps, rawReleases, releasesUrl, visibleApps, world } from './helpers.js';

const sourceDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures', 'appcenter');

function buildInMemory(seed: number, scale = 1): Database.Database {
  const db = new Database(':memory:');
  const faker = new Faker({ locale: [en, base] });
  faker.seed(seed);
  faker.setDefaultRefDate(REFERENCE_DATE);
  void appcenterFixtures.build({
    db,
    seed,
    scale,
    refDate: REFERENCE_DATE,
    filesDir: '/nonexistent',
    sourceDir,
    faker,
    dkanCsvDir: null,
    log: () => {},
    background: () => {},
  });
  return db;
}
const dump = (db: Database.Database) =>
  JSON.stringify(db.prepare('SELECT app_id, id, body FROM appcenter_releases ORDER BY app_id, id').all());

const { app, store } = await testApp();

describe('appcenter fixtures', () => {
  it('are byte-identical for the same seed and differ for another seed; scale multiplies releases', () => {
    const a = buildInMemory(7);
    expect(dump(a)).toBe(dump(buildInMemory(7)));
    expect(dump(a)).not.toBe(dump(buildInMemory(8)));
    const count = (db: Database.Database) =>
      (db.prepare('SELECT count(*) AS n FROM appcenter_releases').get() as { n: number }).n;
    expect(count(buildInMemory(7, 3))).toBe(3 * count(a));
  });

  it('hold every distribution history in every app: never distributed, only deleted groups, live groups, stores', () => {
    for (const { owner, app: appName } of allApps) {
      const raw = rawReleases(store, owner, appName);
      const spec = world.apps.find((x) => x.owner === owner && x.name === appName)!;
      expect(
        raw.some((r) => r.groups.length === 0 && r.stores.length === 0),
        `${owner}/${appName} never distributed`,
      ).toBe(true);
      expect(
        raw.some((r) => r.groups.length > 0 && r.groups.every((g) => g.deleted) && r.stores.length === 0),
        'deleted groups only',
      ).toBe(true);
      expect(
        raw.some((r) => r.groups.some((g) => !g.deleted)),
        'live groups',
      ).toBe(true);
      if (spec.stores.length > 0)
        expect(
          raw.some((r) => r.stores.length > 0),
          'stores',
        ).toBe(true);
    }
  });
});

describe('appcenter catalog (GET /__mockyard/fixtures)', () => {
  it('lists every token with its user and live groups, and every app', async () => {
    const res = await app.inject({ url: '/__mockyard/fixtures' });
    expect(res.statusCode).toBe(200);
    const { appcenter } = res.json() as {
      appcenter: {
        tokens: { token: string; user: string; groups: string[] }[];
        apps: { owner: string; app: string }[];
      };
    };
    expect(appcenter.apps).toEqual(allApps);
    const expected = world.users.flatMap((u) => u.tokens.map((token) => ({ token, user: u.name })));
    expect(
      appcenter.tokens.map(({ token, user }) => ({ token, user })).sort((a, b) => a.token.localeCompare(b.token)),
    ).toEqual(expected.sort((a, b) => a.token.localeCompare(b.token)));
    for (const t of appcenter.tokens) {
      const live = world.apps.flatMap((a) =>
        a.groups.filter((g) => !g.deleted && g.members.includes(t.user)).map((g) => `${a.owner}/${a.name}/${g.name}`),
      );
      expect([...t.groups].sort()).toEqual(live.sort());
      // Each listed token authenticates: 200 on the apps it can see, 404 (not 401) elsewhere.
      const visible = visibleApps(store, t.user);
      const { owner, app: appName } = allApps[0]!;
      const r = await app.inject({ url: releasesUrl(owner, appName, { top: 1 }), headers: { 'x-api-token': t.token } });
      expect(r.statusCode).toBe(visible.has(`${owner}/${appName}`) ? 200 : 404);
    }
  });
});
