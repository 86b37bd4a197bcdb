// A scenario body -> a fixture store of its own: checked, turned into records, loaded by the areas' own loaders.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from '../../fixtures/lib/sqlite.js';
import { Compile } from 'typebox/compile';
import { loadAgco } from '../../fixtures/agco/load.js';
import { loadAppcenter } from '../../fixtures/appcenter/load.js';
import { loadArchive } from '../../fixtures/archive/load.js';
import { DKAN_TABLES_SQL } from '../../fixtures/dkan/layout.js';
import { DkanWriter } from '../../fixtures/dkan/writer.js';
import { loadMarketcheck } from '../../fixtures/marketcheck/load.js';
import type { AreaName } from '../platform/area.js';
import { FixtureStore } from '../platform/data/fixture-store.js';
import { agcoRecords } from './agco.js';
import { appcenterRecords } from './appcenter.js';
import { archiveRecords } from './archive.js';
import { dkanRecords } from './dkan.js';
import { ScenarioError } from './errors.js';
import { marketcheckRecords } from './marketcheck.js';
import { ScenarioBodySchema, type ScenarioBody } from './schema.js';

export { ScenarioError };

const validator = Compile(ScenarioBodySchema);

/** The body, typed, or a ScenarioError naming the JSON pointer of the first problem. */
export function checkScenarioBody(body: unknown): ScenarioBody {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new ScenarioError('', 'the body must be a JSON object with one key per area');
  if (validator.Check(body)) return body;
  const first = validator.Errors(body)[0];
  if (!first) throw new ScenarioError('', 'the body does not match the scenario schema');
  // A property the schema does not allow is reported at its own pointer ("schema is false" there).
  if (first.keyword === 'boolean') {
    const name = first.instancePath
      .slice(first.instancePath.lastIndexOf('/') + 1)
      .replace(/~1/g, '/')
      .replace(/~0/g, '~');
    throw new ScenarioError(first.instancePath, `unknown property "${name}"`);
  }
  if (first.keyword === 'additionalProperties') {
    const extra = (first.params as { additionalProperties?: string[] }).additionalProperties?.[0] ?? '';
    throw new ScenarioError(
      `${first.instancePath}/${extra.replace(/~/g, '~0').replace(/\//g, '~1')}`,
      `unknown property "${extra}"`,
    );
  }
  throw new ScenarioError(first.instancePath, first.message);
}

export type AreaCounts = Partial<Record<AreaName, Record<string, number>>>;

export interface BuiltScenario {
  store: FixtureStore;
  /** The areas the body names: requests in the scenario read these from `store`. */
  areas: ReadonlySet<AreaName>;
  counts: AreaCounts;
  /** Removes the scenario's files; call once its store is closed. */
  cleanup(): void;
}

/** The scenario's records in a database file of its own, loaded the way the generated data is. */
export function buildScenario(name: string, input: unknown): BuiltScenario {
  const body = checkScenarioBody(input);
  // Convert every area first: a bad body is refused before anything is created.
  const appcenter = body.appcenter && appcenterRecords(body.appcenter);
  const agco = body.agco && agcoRecords(body.agco);
  const marketcheck = body.marketcheck && marketcheckRecords(body.marketcheck);
  const archive = body.archive && archiveRecords(body.archive);
  const dkan = body.dkan && dkanRecords(body.dkan);

  const fingerprint = createHash('sha256').update(JSON.stringify(body)).digest('hex');
  const dir = mkdtempSync(path.join(os.tmpdir(), `mockyard-scenario-${name}-`));
  const filesDir = archive ? dir : '';
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  let db = new Database(':memory:');
  try {
    db.exec('CREATE TABLE mockyard_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID');
    db.prepare("INSERT INTO mockyard_meta VALUES ('fingerprint', ?), ('scenario', ?)").run(fingerprint, name);
    // Credentials a scenario names replace the configured ones for its requests (see scenarios/credentials.ts).
    db.exec('CREATE TABLE mockyard_credentials (area TEXT NOT NULL, value TEXT NOT NULL)');
    const credential = db.prepare('INSERT INTO mockyard_credentials VALUES (?, ?)');
    for (const token of body.agco?.tokens ?? []) credential.run('agco', token);
    for (const key of body.marketcheck?.apiKeys ?? []) credential.run('marketcheck', key);

    const counts: AreaCounts = {};
    if (appcenter) {
      loadAppcenter(db, appcenter.records);
      counts.appcenter = appcenter.counts;
    }
    if (agco) {
      loadAgco(db, agco.records);
      counts.agco = agco.counts;
    }
    if (marketcheck) {
      loadMarketcheck(db, marketcheck.records);
      counts.marketcheck = marketcheck.counts;
    }
    if (archive) {
      loadArchive(db, path.join(filesDir, 'archive'), archive.records, { bytesInDb: true });
      counts.archive = archive.counts;
    }
    if (dkan) {
      db.exec(DKAN_TABLES_SQL);
      const writer = new DkanWriter(db);
      for (const dataset of dkan.records) writer.write(dataset);
      counts.dkan = dkan.counts;
    }
    const areas = new Set(Object.keys(counts) as AreaName[]);
    // Built in memory (fast), then kept as a read-only file: the query executor's processes open the same
    // file, so a scenario's queries run off the event loop under the budget, like the generated data's.
    const dbPath = path.join(dir, 'scenario.db');
    writeFileSync(dbPath, db.serialize());
    db.close();
    db = new Database(dbPath, { readonly: true, fileMustExist: true });
    db.pragma('cache_size = -8192');
    return { store: new FixtureStore({ db, filesDir, fingerprint, dbPath }), areas, counts, cleanup };
  } catch (err) {
    db.close();
    cleanup();
    throw err;
  }
}
