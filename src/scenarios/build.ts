// A scenario body -> a fixture store of its own: checked, turned into records, loaded by the areas' own loaders.
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setImmediate as turn } from 'node:timers/promises';
import Database from '../../fixtures/lib/sqlite.js';
import { Compile } from 'typebox/compile';
import { loadAgco } from '../../fixtures/agco/load.js';
import { loadAppcenter } from '../../fixtures/appcenter/load.js';
import { loadArchive } from '../../fixtures/archive/load.js';
import { DKAN_TABLES_SQL } from '../../fixtures/dkan/layout.js';
import { DkanWriter, type DatasetSource } from '../../fixtures/dkan/writer.js';
import { loadMarketcheck } from '../../fixtures/marketcheck/load.js';
import type { AreaName } from '../platform/area.js';
import { FixtureStore, openReadOnly } from '../platform/data/fixture-store.js';
import { agcoRecords } from './agco.js';
import { appcenterRecords } from './appcenter.js';
import { archiveRecords } from './archive.js';
import { dkanRecords } from './dkan.js';
import { ScenarioError } from './errors.js';
import { scenarioMappings, type MappingsFile, type ScenarioMappings } from './stubs.js';
import { marketcheckRecords } from './marketcheck.js';
import { SCENARIO_LIMITS, ScenarioBodySchema, type ScenarioBody } from './schema.js';
import { jsonDepthOver } from '../platform/http/json-body.js';

export { ScenarioError };

const compileBodyValidator = () => Compile(ScenarioBodySchema);

/**
 * Checks scenario bodies against the scenario schema. Its owner (the registry, a builder process) keeps one
 * for its life; the validator is compiled on the first body, since a TypeBox compile of the whole schema
 * takes about 5 ms, which every start paid when it was made at import.
 */
export class ScenarioBodyChecker {
  #validator: ReturnType<typeof compileBodyValidator> | undefined;

  /** The body, typed, or a ScenarioError naming the JSON pointer of the first problem. */
  check(body: unknown): ScenarioBody {
    this.#validator ??= compileBodyValidator();
    return checkBody(this.#validator, body);
  }
}

function checkBody(validator: ReturnType<typeof compileBodyValidator>, body: unknown): ScenarioBody {
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
  // A file's declared size past the documented limit is too large, not malformed.
  if (first.keyword === 'maximum' && /^\/archive\/items\/\d+\/files\/\d+\/size$/.test(first.instancePath))
    throw new ScenarioError(first.instancePath, `a file may have at most ${SCENARIO_LIMITS.fileBytes} bytes`, 413);
  throw new ScenarioError(first.instancePath, first.message);
}

export type AreaCounts = Partial<Record<AreaName, Record<string, number>>>;

/** A scenario built on disk (by any thread): its database file and folder, nothing opened yet. */
export interface BuiltScenario {
  /** The scenario's own folder: its database and the archive files; removed with the scenario. */
  dir: string;
  dbPath: string;
  filesDir: string;
  fingerprint: string;
  /** The areas the body names: requests in the scenario read these from its store. */
  areas: AreaName[];
  counts: AreaCounts;
  /** Bytes it holds on disk (database and files written now), counted against SCENARIO_LIMITS.totalBytes. */
  bytes: number;
  /** Its `stubs` / `mappings` member, already checked (see stubs.ts), or null. */
  stubs: ScenarioMappings | null;
  /** The same, written to a file by the builder process instead (`stubs` is then null). */
  stubsFile?: MappingsFile;
}

/** A nesting depth no scenario body needs; deeper bodies would overflow the checker's recursion. */
const MAX_DEPTH = 64;

/** Parses a scenario body sent as text; a ScenarioError (400) when it is not JSON or nests too deep. */
export function parseScenarioText(text: string): unknown {
  if (jsonDepthOver(text, MAX_DEPTH))
    throw new ScenarioError('', `the body nests arrays and objects more than ${MAX_DEPTH} levels deep`);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ScenarioError('', `the body is not JSON: ${(err as Error).message}`);
  }
}

function sizeOnDisk(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(path.join(entry.parentPath, entry.name)).size;
  }
  return total;
}

/** The prefix of a scenario's folder (mkdtemp adds six characters). */
export const scenarioDirPrefix = (name: string): string => path.join(os.tmpdir(), `mockyard-scenario-${name}-`);

/**
 * The scenario's records in a database file of its own, loaded the way the generated data is, in one
 * synchronous run: on the main thread (at start, and for the programmatic API). The scenario builder's
 * process (see builder.ts) builds with buildScenarioInTurns, in a folder the server made (`dir`, empty);
 * without one, the folder is made here. Either is removed when the build fails.
 */
export function buildScenario(name: string, input: unknown, checker: ScenarioBodyChecker, dir?: string): BuiltScenario {
  const steps = scenarioBuild(name, input, checker, dir);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** How long a build in turns works before it lets the event loop run. */
const TURN_MS = 10;

/**
 * The same, letting the event loop run between steps (each DKAN resource is one) every TURN_MS: the builder's
 * process builds so. better-sqlite3 finalizes a statement it no longer uses from the event loop, once collected;
 * in one synchronous run of thousands of datasets they piled up, and each CREATE INDEX marks every live
 * statement expired, time that grew with the datasets written before it. The process also hears of a server
 * gone between turns.
 */
export async function buildScenarioInTurns(
  name: string,
  input: unknown,
  checker: ScenarioBodyChecker,
  dir?: string,
): Promise<BuiltScenario> {
  const steps = scenarioBuild(name, input, checker, dir);
  let since = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - since >= TURN_MS) {
      await turn();
      since = performance.now();
    }
  }
}

/** The build in steps (the body checked, each area but DKAN, each DKAN resource); abandoned, it removes what it made. */
function* scenarioBuild(
  name: string,
  input: unknown,
  checker: ScenarioBodyChecker,
  given?: string,
): Generator<void, BuiltScenario, undefined> {
  const body = checker.check(input);
  // Convert every area first: a bad body is refused before anything is created.
  const appcenter = body.appcenter && appcenterRecords(body.appcenter);
  const agco = body.agco && agcoRecords(body.agco);
  const marketcheck = body.marketcheck && marketcheckRecords(body.marketcheck);
  const archive = body.archive && archiveRecords(body.archive);
  const dkan = body.dkan && dkanRecords(body.dkan);
  const stubs = scenarioMappings(body);
  yield;

  const fingerprint = createHash('sha256').update(JSON.stringify(body)).digest('hex');
  const dir = given ?? mkdtempSync(scenarioDirPrefix(name));
  const filesDir = path.join(dir, 'files');
  const dbPath = path.join(dir, 'scenario.db');
  // Built in memory (fast), then written once as the file the server and the query executor open.
  const db = new Database(':memory:');
  let built = false;
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
      yield;
    }
    if (agco) {
      loadAgco(db, agco.records);
      counts.agco = agco.counts;
      yield;
    }
    if (marketcheck) {
      loadMarketcheck(db, marketcheck.records);
      counts.marketcheck = marketcheck.counts;
      yield;
    }
    if (archive) {
      loadArchive(db, path.join(filesDir, 'archive'), archive.records, { bytesInDb: true });
      counts.archive = archive.counts;
      yield;
    }
    if (dkan) {
      yield* dkanSteps(db, dkan.records);
      counts.dkan = dkan.counts;
    }
    writeFileSync(dbPath, db.serialize());
    db.close();
    const areas = Object.keys(counts) as AreaName[];
    built = true;
    return { dir, dbPath, filesDir, fingerprint, areas, counts, bytes: sizeOnDisk(dir), stubs };
  } finally {
    if (!built) {
      if (db.open) db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

/** Writes the DKAN datasets, one resource per step. */
function* dkanSteps(db: Database.Database, records: DatasetSource[]): Generator<void, void, undefined> {
  db.exec(DKAN_TABLES_SQL);
  const writer = new DkanWriter(db);
  for (const dataset of records) yield* writer.steps(dataset);
}

/** Opens a built scenario read-only, as the generated data is opened. */
export function openScenario(built: BuiltScenario): { store: FixtureStore; cleanup(): void } {
  const db = openReadOnly(built.dbPath);
  db.pragma('cache_size = -8192');
  const store = new FixtureStore({
    db,
    filesDir: built.filesDir,
    fingerprint: built.fingerprint,
    dbPath: built.dbPath,
  });
  // Off the event loop: a scenario may hold many files.
  return { store, cleanup: () => void rm(built.dir, { recursive: true, force: true }).catch(() => undefined) };
}
