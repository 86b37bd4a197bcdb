// Start and stop a whole mockyard: fixtures, store, the shared port and the optional per-area ports.
import { watch, type FSWatcher } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { BuildResult } from '../fixtures/build.js';
import { DB_FILE, fixtureFingerprint, isCurrent } from '../fixtures/fingerprint.js';
import path from 'node:path';
import { buildApp } from './app.js';
import { AREAS } from './areas/index.js';
import type { AreaName } from './areas/types.js';
import type { Config } from './config.js';
import { fixturesRoot } from './paths.js';
import { FixtureStore } from './platform/fixture-store.js';

export class StartError extends Error {}

export interface RunningMockyard {
  /** Base URL of the shared port, e.g. http://127.0.0.1:4010 (areas under /archive, /dkan, ...). */
  url: string;
  /** Base URL of each area's own port, when --area-ports is set. */
  areaUrls: Partial<Record<AreaName, string>>;
  app: FastifyInstance;
  store: FixtureStore;
  config: Config;
  close(): Promise<void>;
}

export type Progress = (message: string) => void;

/** Builds the fixture database when it is missing or stale; on a current one it loads no builder code. */
export async function ensureFixtures(config: Config, progress: Progress, force = false): Promise<BuildResult> {
  const started = process.hrtime.bigint();
  const input = { fixturesDir: fixturesRoot(), seed: config.seed, scale: config.scale, dkanCsvDir: config.dkanCsvDir };
  const fingerprint = fixtureFingerprint(input);
  if (!force && isCurrent(config.dataDir, fingerprint)) {
    return { built: false, dbPath: path.join(config.dataDir, DB_FILE), fingerprint, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
  }
  const { buildFixtures } = await import('../fixtures/build.js');
  return buildFixtures({
    dataDir: config.dataDir,
    fixturesDir: fixturesRoot(),
    seed: config.seed,
    scale: config.scale,
    dkanCsvDir: config.dkanCsvDir,
    force,
    log: progress,
  });
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
    if (code === 'EADDRINUSE') throw new StartError(`port ${port} on ${host} is already in use; choose another with --port (0 picks a free one)`);
    if (code === 'EACCES') throw new StartError(`no permission to listen on ${host}:${port}; choose a port above 1023`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new StartError(`cannot listen on host ${host}: no such local address`);
    throw err;
  }
}

export async function startServer(config: Config, progress: Progress = () => {}): Promise<RunningMockyard> {
  await ensureFixtures(config, progress);
  const store = FixtureStore.open(config.dataDir);
  const apps: FastifyInstance[] = [];
  let watcher: FSWatcher | undefined;
  const close = async () => {
    watcher?.close();
    await Promise.all(apps.map((a) => a.close()));
    store.close();
  };
  try {
    const app = await buildApp(config, store);
    apps.push(app);
    await listen(app, config.host, config.port);
    const areaUrls: Partial<Record<AreaName, string>> = {};
    if (config.areaPorts !== null) {
      for (const [i, area] of AREAS.entries()) {
        const areaApp = await buildApp(config, store, { only: area });
        apps.push(areaApp);
        await listen(areaApp, config.host, config.areaPorts + i);
        areaUrls[area.name] = urlOf(areaApp, config);
      }
    }
    if (config.watch) watcher = watchFixtures(config, store, app, progress);
    return { url: urlOf(app, config), areaUrls, app, store, config, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** Rebuilds on fixture changes and swaps the new database in; requests keep being served throughout. */
function watchFixtures(config: Config, store: FixtureStore, app: FastifyInstance, progress: Progress): FSWatcher {
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let again = false;
  const rebuild = async () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      const result = await ensureFixtures(config, progress);
      if (result.built) {
        store.swap();
        app.log.info({ fingerprint: result.fingerprint }, 'fixtures rebuilt and swapped in');
      }
    } catch (err) {
      app.log.error({ err }, 'fixture rebuild failed; still serving the previous data');
    } finally {
      running = false;
      if (again) {
        again = false;
        void rebuild();
      }
    }
  };
  const dirs = [fixturesRoot(), ...(config.dkanCsvDir ? [config.dkanCsvDir] : [])];
  const watchers = dirs.map((dir) =>
    watch(dir, { recursive: true }, () => {
      clearTimeout(timer);
      timer = setTimeout(() => void rebuild(), 150);
    }),
  );
  const [first] = watchers;
  if (!first) throw new StartError('nothing to watch');
  // One handle for the caller; closing it closes all.
  const originalClose = first.close.bind(first);
  first.close = () => {
    clearTimeout(timer);
    originalClose();
    for (const w of watchers.slice(1)) w.close();
  };
  return first;
}
