// The app exactly as production builds it, on the default fixture database, driven through inject().
import type { FastifyInstance } from 'fastify';
import { afterAll } from 'vitest';
import { buildApp } from '../../src/app.js';
import { resolveConfig, type Config, type ConfigInput } from '../../src/config.js';
import { FixtureStore } from '../../src/platform/fixture-store.js';

export interface TestApp {
  app: FastifyInstance;
  store: FixtureStore;
  config: Config;
}

/**
 * Builds an app for this test file and closes it after the file's tests. Options are the same
 * ones a user passes on the command line; only logging is quiet.
 */
export async function testApp(options: ConfigInput = {}): Promise<TestApp> {
  const config = resolveConfig({ logLevel: 'silent', ...options });
  const store = FixtureStore.open(config.dataDir);
  const app = await buildApp(config, store);
  await app.ready();
  afterAll(async () => {
    await app.close();
    store.close();
  });
  return { app, store, config };
}
