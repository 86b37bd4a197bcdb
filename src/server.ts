// Start and stop a whole mockyard: fixtures, store, the shared port and the optional per-area ports.
import { existsSync } from 'node:fs';
import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { AREAS } from './areas/index.js';
import type { AreaDefinition, AreaName } from './platform/area.js';
import { caDirOf, type Config } from './config.js';
import type { Server as TlsServer } from 'node:tls';
import { CertificateAuthority } from './platform/hosts/certificates.js';
import { tlsFront } from './platform/hosts/proxy.js';
import { HostRouter } from './platform/hosts/real-hosts.js';
import { fixturesRoot } from './paths.js';
import { FixtureStore } from './platform/data/fixture-store.js';
import { Stores } from './platform/data/stores.js';
import { Runtime } from './platform/controls/runtime.js';
import { watchFixtures, type FixtureWatcher } from './platform/data/watch.js';
import { rebuildInChild } from './platform/data/rebuild.js';
import { QueryPool } from './platform/data/query-pool.js';
import { Scenarios, summary, type ScenarioSummary } from './scenarios/registry.js';
import { ScenarioFileError, loadScenarioDir, watchScenarioDir } from './scenarios/files.js';
import { ScenarioError } from './scenarios/errors.js';
import { Stubs } from './stubs/world.js';
import { StartError, ensureFixtures, type Progress } from './ensure-fixtures.js';
import { MappingError } from './stubs/errors.js';

export { ensureFixtures, StartError, type EnsureOptions, type Progress } from './ensure-fixtures.js';

export interface RunningMockyard {
  /** Base URL of the shared port, e.g. http://127.0.0.1:4010 (areas under /archive, /dkan, ...). */
  url: string;
  /** Base URL of each area: its own port with --area-ports, else the shared port and the area's prefix. */
  areaUrls: Record<AreaName, string>;
  /** Base URL of the --tls-port listener (https://127.0.0.1:PORT), when it is set. */
  tlsUrl: string | null;
  /** The local certificate authority's certificate file, to give clients as their trust root. */
  caCertPath: string;
  app: FastifyInstance;
  /** The fixture data being served; `stores.current` is the generation new requests get. */
  stores: Stores;
  config: Config;
  /** Journal, reset and fault state shared by all ports. */
  runtime: Runtime;
  /** The scenarios held, shared by all ports. */
  scenarios: Scenarios;
  /**
   * Creates (or replaces) scenario `name` from `body` and says how to call it. Rejects with a
   * ScenarioError naming the JSON pointer of the first problem; nothing is stored then.
   */
  scenario(name: string, body: unknown): Promise<ScenarioHandle>;
  close(): Promise<void>;
}

export interface ScenarioHandle extends ScenarioSummary {
  /** Base URL with the /scenarios/{name} prefix: `${url}/appcenter/...` is answered in the scenario. */
  url: string;
  /** Each area's base URL in the scenario (the real service's base URL is swapped for this). */
  areaUrls: Record<AreaName, string>;
  /** Headers that put a request into the scenario without the prefix. */
  headers: { 'Mockyard-Scenario': string };
  remove(): Promise<void>;
}

export interface StartServerOptions {
  /** Scenarios to load at start, by name. */
  scenarios?: Record<string, unknown>;
}

/**
 * The query processes start once the server has answered its first request, or half a second after it
 * listens, whichever comes first. Each start forks this process on its event loop and costs about a quarter
 * of a second of CPU, which would otherwise come before the first answer; a query that comes sooner starts a
 * process of its own at once (QueryPool), as it would have had to wait for a starting one anyway.
 */
function prestartSoon(server: HttpServer, pool: QueryPool): void {
  let timer: NodeJS.Timeout | undefined;
  let started = false;
  const start = () => {
    if (started) return;
    started = true;
    clearTimeout(timer);
    server.off('request', onRequest);
    pool.prestart();
  };
  const onRequest = (_req: IncomingMessage, res: ServerResponse) => res.once('close', start);
  server.on('request', onRequest);
  timer = setTimeout(start, 500).unref();
}

function urlOf(app: FastifyInstance, config: Config): string {
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new StartError('server has no TCP address');
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  // 0.0.0.0 is where we listen, not an address to call.
  const shown = config.host === '0.0.0.0' ? '127.0.0.1' : config.host === '::' ? '[::1]' : host;
  return `http://${shown}:${address.port}`;
}

async function listen(app: FastifyInstance, host: string, port: number): Promise<void> {
  try {
    await app.listen({ host, port });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new StartError(
        `port ${port} on ${host} is already in use; choose another with --port (0 picks a free one)`,
      );
    if (code === 'EACCES') throw new StartError(`no permission to listen on ${host}:${port}; choose a port above 1023`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
      throw new StartError(`cannot listen on host ${host}: no such local address`);
    throw err;
  }
}

async function listenTls(server: TlsServer, host: string, port: number): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE')
        reject(
          new StartError(
            `TLS port ${port} on ${host} is already in use; choose another with --tls-port (0 picks a free one)`,
          ),
        );
      else if (err.code === 'EACCES')
        reject(new StartError(`no permission to listen on ${host}:${port}; choose a TLS port above 1023`));
      else reject(err);
    });
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new StartError('TLS server has no TCP address');
  const shown =
    host === '0.0.0.0'
      ? '127.0.0.1'
      : host === '::'
        ? '[::1]'
        : address.family === 'IPv6'
          ? `[${address.address}]`
          : address.address;
  return `https://${shown}:${address.port}`;
}

/** Stub mappings loaded from --mappings, shared by every port; a bad mapping stops the start. */
function loadStubs(config: Config, runtime: Runtime): Stubs {
  let stubs: Stubs;
  try {
    stubs = new Stubs({ mappingsDir: config.mappings, recordTo: config.recordTo, adminToken: config.adminToken });
  } catch (err) {
    if (err instanceof MappingError) throw new StartError(`--mappings: ${err.message}`);
    throw err;
  }
  runtime.onReset(() => stubs.reset());
  return stubs;
}

/** Scenarios from --scenarios-dir, then those given to startServer; a bad one stops the start. */
function loadScenarios(scenarios: Scenarios, config: Config, given: Record<string, unknown>): void {
  try {
    if (config.scenariosDir !== null) loadScenarioDir(scenarios, config.scenariosDir);
    for (const [name, body] of Object.entries(given)) scenarios.put(name, body);
  } catch (err) {
    if (err instanceof ScenarioFileError) throw new StartError(err.message);
    if (err instanceof ScenarioError) throw new StartError(`scenario: ${err.message}`);
    throw err;
  }
}

/** What a running mockyard holds besides its apps, closed in order by `close`. */
class Resources {
  readonly apps: FastifyInstance[] = [];
  watcher: FixtureWatcher | undefined;
  scenarioWatcher: { close(): void } | undefined;
  tlsServer: TlsServer | undefined;

  constructor(
    readonly stores: Stores,
    readonly runtime: Runtime,
    readonly queryPool: QueryPool,
    readonly scenarios: Scenarios,
    readonly ca: CertificateAuthority,
  ) {}

  async close(): Promise<void> {
    const { tlsServer } = this;
    this.runtime.shutdown();
    this.watcher?.close();
    this.scenarioWatcher?.close();
    await this.watcher?.idle();
    const tlsClosed = tlsServer ? new Promise<void>((resolve) => tlsServer.close(() => resolve())) : undefined;
    await Promise.all(this.apps.map((a) => a.close()));
    await tlsClosed;
    await this.queryPool.close();
    this.scenarios.close();
    this.ca.close();
    this.stores.close();
  }
}

/** With --area-ports, each area on a port of its own; returns every area's base URL. */
async function listenAreaPorts(
  config: Config,
  held: Resources,
  build: (area: AreaDefinition) => Promise<FastifyInstance>,
  sharedUrl: string,
): Promise<Record<AreaName, string>> {
  const areaUrls = Object.fromEntries(AREAS.map((a) => [a.name, `${sharedUrl}${a.prefix}`])) as Record<
    AreaName,
    string
  >;
  if (config.areaPorts === null) return areaUrls;
  for (const [i, area] of AREAS.entries()) {
    const areaApp = await build(area);
    held.apps.push(areaApp);
    // 0: a free port for each area, so that tests never need consecutive free ports.
    await listen(areaApp, config.host, config.areaPorts === 0 ? 0 : config.areaPorts + i);
    areaUrls[area.name] = urlOf(areaApp, config);
  }
  return areaUrls;
}

/** --watch: rebuild the fixtures when their files change, and reload scenario files. */
function startWatchers(config: Config, held: Resources, app: FastifyInstance, progress: Progress): void {
  if (!config.watch) return;
  const dirs = [fixturesRoot(), config.dkanCsvDir].filter((d): d is string => d !== null && existsSync(d));
  // Built in a child process: this event loop keeps answering, and the builder code is fresh.
  held.watcher = watchFixtures({
    dirs,
    rebuild: () => rebuildInChild(config, progress),
    stores: held.stores,
    dataDir: config.dataDir,
    log: app.log,
  });
  if (config.scenariosDir !== null)
    held.scenarioWatcher = watchScenarioDir(held.scenarios, config.scenariosDir, app.log);
}

/** RunningMockyard.scenario: creates (or replaces) a scenario and says how to call it. */
function scenarioMaker(scenarios: Scenarios, url: string): RunningMockyard['scenario'] {
  return async (name, body) => {
    const { scenario: created } = scenarios.put(name, body);
    const base = `${url}/scenarios/${name}`;
    return {
      ...summary(created),
      url: base,
      areaUrls: Object.fromEntries(AREAS.map((a) => [a.name, `${base}${a.prefix}`])) as Record<AreaName, string>,
      headers: { 'Mockyard-Scenario': name },
      remove: async () => {
        // Only this version: a later put under the same name is not removed by an old handle.
        if (scenarios.get(name) === created) scenarios.remove(name);
      },
    };
  };
}

export async function startServer(
  config: Config,
  progress: Progress = () => {},
  options: StartServerOptions = {},
): Promise<RunningMockyard> {
  await ensureFixtures(config, progress);
  // Only watch mode swaps the generated store while requests run.
  const stores = new Stores(FixtureStore.open(config.dataDir), { swappable: config.watch });
  const runtime = new Runtime(config);
  const router = new HostRouter(AREAS, config.hostMap);
  const ca = new CertificateAuthority(caDirOf(config));
  const queryPool = new QueryPool();
  const scenarios = new Scenarios(config.scenario);
  runtime.onReset(() => scenarios.clear());
  const held = new Resources(stores, runtime, queryPool, scenarios, ca);
  try {
    const stubs = loadStubs(config, runtime);
    loadScenarios(scenarios, config, options.scenarios ?? {});
    // Made (or loaded) now so its certificate file exists once mockyard says it is ready; without a
    // writable folder mockyard still serves, and only TLS reports the problem.
    await ca.ready().catch((err: Error) => progress(`no local CA, so no TLS for real host names: ${err.message}`));
    const app = await buildApp(config, stores, { runtime, realHosts: { router, ca }, queryPool, scenarios, stubs });
    held.apps.push(app);
    await listen(app, config.host, config.port);
    prestartSoon(app.server, queryPool);
    let tlsUrl: string | null = null;
    if (config.tlsPort !== null) {
      const extra = config.host === '0.0.0.0' || config.host === '::' ? [] : [config.host];
      held.tlsServer = tlsFront(app.server, await ca.issue(router.certificateNames(extra)));
      tlsUrl = await listenTls(held.tlsServer, config.host, config.tlsPort);
    }
    const url = urlOf(app, config);
    const areaUrls = await listenAreaPorts(
      config,
      held,
      (area) => buildApp(config, stores, { only: area, runtime, queryPool, scenarios, stubs }),
      url,
    );
    startWatchers(config, held, app, progress);
    if (config.scenario !== null && !scenarios.get(config.scenario)) {
      app.log.warn(
        { scenario: config.scenario },
        'the default scenario does not exist (yet): area requests get a 404 naming it until it is created',
      );
    }
    const scenario = scenarioMaker(scenarios, url);
    const close = () => held.close();
    return {
      url,
      areaUrls,
      tlsUrl,
      caCertPath: ca.files.certPath,
      app,
      stores,
      config,
      runtime,
      scenarios,
      scenario,
      close,
    };
  } catch (err) {
    await held.close();
    throw err;
  }
}
