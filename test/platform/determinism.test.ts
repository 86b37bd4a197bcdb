// The same seed gives byte-identical answers from a database built anywhere, at any time.
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { resolveConfig } from '../../src/config.js';
import { FixtureStore } from '../../src/platform/data/fixture-store.js';
import { Stores } from '../../src/platform/data/stores.js';
import { ensureFixtures } from '../../src/server.js';
import { testApp } from '../helpers/app.js';
import { DB_FILE, filesDirFor, storedFingerprint } from '../../fixtures/fingerprint.js';

const { app: reference, config: referenceConfig } = await testApp();

/** sha256 of a built data folder: the database file and every generated file (path and bytes). */
function dataHash(dataDir: string): string {
  const hash = createHash('sha256');
  const dbPath = path.join(dataDir, DB_FILE);
  hash.update(readFileSync(dbPath));
  const files = filesDirFor(dataDir, storedFingerprint(dbPath) ?? '');
  const entries = readdirSync(files, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  for (const name of entries.map((e) => path.relative(files, path.join(e.parentPath, e.name))).sort()) {
    hash
      .update(name)
      .update('\0')
      .update(readFileSync(path.join(files, name)))
      .update('\0');
  }
  return hash.digest('hex');
}

async function appOn(dataDir: string, seed: number): Promise<{ app: FastifyInstance; store: FixtureStore }> {
  const config = resolveConfig({ logLevel: 'silent', dataDir, seed }, {});
  await ensureFixtures(config, () => {}, true);
  const store = FixtureStore.open(dataDir);
  return { app: await buildApp(config, new Stores(store)), store };
}

/** One successful request per operation, with identifiers taken from the catalog. */
async function sampleRequests(app: FastifyInstance) {
  const catalog = (await app.inject('/__mockyard/fixtures')).json();
  const item = catalog.archive.items.find((i: { status: string }) => i.status === 'ok');
  const app0 = catalog.appcenter.apps[0];
  const token =
    catalog.appcenter.tokens.find((t: { user: string }) => t.user === app0.owner)?.token ??
    catalog.appcenter.tokens[0].token;
  const ds = catalog.dkan.datasets[0];
  return [
    { url: '/__mockyard/fixtures' },
    { url: `/archive/metadata/${item.identifier}` },
    { url: `/archive/download/${item.identifier}/${encodeURI(item.files[0])}` },
    { url: '/marketcheck/popular/cars?api_key=k&car_type=new&state=CA' },
    { url: `/appcenter/v0.1/apps/${app0.owner}/${app0.app}/releases`, headers: { 'x-api-token': token } },
    { url: '/agco/api/v2/StringDefinitions?includeTranslations=true&limit=25', headers: { authorization: 'Bearer t' } },
    { url: `/dkan/datastore/query/${ds.id}/0?limit=50&sort=${ds.resources[0].columns[1].name} desc` },
  ];
}

describe('deterministic fixtures', () => {
  const dirs: string[] = [];
  const opened: { app: FastifyInstance; store: FixtureStore }[] = [];
  let sameSeed: FastifyInstance;
  let otherSeed: FastifyInstance;

  beforeAll(async () => {
    for (const seed of [1337, 7]) {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'mockyard-determinism-'));
      dirs.push(dir);
      opened.push(await appOn(dir, seed));
    }
    [sameSeed, otherSeed] = opened.map((o) => o.app) as [FastifyInstance, FastifyInstance];
  }, 300_000);

  afterAll(async () => {
    for (const o of opened) {
      await o.app.close();
      o.store.close();
    }
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('a fresh build with the same seed answers byte for byte like the default database', async () => {
    for (const req of await sampleRequests(reference)) {
      const a = await reference.inject(req);
      const b = await sameSeed.inject(req);
      expect(a.statusCode, req.url).toBe(200);
      expect(b.statusCode, req.url).toBe(200);
      expect(b.rawPayload.equals(a.rawPayload), `${req.url} differs between builds`).toBe(true);
    }
  });

  it('a fresh build with the same seed writes the same database file and generated files, byte for byte', () => {
    expect(dataHash(dirs[0]!)).toBe(dataHash(referenceConfig.dataDir));
    expect(dataHash(dirs[1]!)).not.toBe(dataHash(referenceConfig.dataDir));
  });

  it('another seed gives other data', async () => {
    const req = { url: '/marketcheck/popular/cars?api_key=k&car_type=new' };
    const a = await reference.inject(req);
    const b = await otherSeed.inject(req);
    expect(b.statusCode).toBe(200);
    expect(b.rawPayload.equals(a.rawPayload)).toBe(false);
  });
});
