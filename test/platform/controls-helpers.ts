// Builds the production app with the fake areas, optionally listening on a loopback port for socket-level tests.
import type { FastifyInstance } from 'fastify';
import { afterAll } from 'vitest';
import { buildApp } from '../../src/app.js';
import { resolveConfig, type Config, type ConfigInput } from '../../src/config.js';
import { FixtureStore } from '../../src/platform/data/fixture-store.js';
import { Stores } from '../../src/platform/data/stores.js';
import { FAKE_AREAS } from './fake-areas.js';

export interface ControlsApp {
  app: FastifyInstance;
  config: Config;
  store: FixtureStore;
  stores: Stores;
  /** Set when built with listen: true. */
  url: string;
}

export async function controlsApp(options: ConfigInput = {}, listen = false): Promise<ControlsApp> {
  const config = resolveConfig({ logLevel: 'silent', ...options });
  const stores = new Stores(FixtureStore.open(config.dataDir));
  const store = stores.current;
  const app = await buildApp(config, stores, { areas: FAKE_AREAS });
  let url = '';
  if (listen) {
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    if (!address || typeof address === 'string') throw new Error('no address');
    url = `http://127.0.0.1:${address.port}`;
  } else {
    await app.ready();
  }
  afterAll(async () => {
    await app.close();
    stores.close();
  });
  return { app, config, store, stores, url };
}
