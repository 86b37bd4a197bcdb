// The app exactly as production builds it, on the default fixture database, driven through inject().
import type { FastifyInstance } from 'fastify';
import { afterAll } from 'vitest';
import { buildApp } from '../../src/app.js';
import { resolveConfig, type Config, type ConfigInput } from '../../src/config.js';
import { FixtureStore } from '../../src/platform/data/fixture-store.js';
import { Stores } from '../../src/platform/data/stores.js';

export interface TestApp {
  app: FastifyInstance;
  /** The store the app serves (for looking up fixture data in a test). */
  store: FixtureStore;
  stores: Stores;
  config: Config;
}

/**
 * Builds an app for this test file and closes it after the file's tests. Options are the same
 * ones a user passes on the command line; only logging is quiet.
 */
export async function testApp(options: ConfigInput = {}): Promise<TestApp> {
  const config = resolveConfig({ logLevel: 'silent', ...options });
  const stores = new Stores(FixtureStore.open(config.dataDir));
  const app = await buildApp(config, stores);
  await app.ready();
  afterAll(async () => {
    await app.close();
    stores.close();
  });
  return { app, store: stores.current, stores, config };
}
