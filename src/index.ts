// Programmatic API: start mockyard in-process from a test runner's global setup.
import { resolveConfig, type Config, type ConfigInput } from './config.js';
import { startServer, type RunningMockyard } from './server.js';

export { buildApp } from './app.js';
export { resolveConfig, OPTIONS, DEFAULTS, ConfigError } from './config.js';
export type { Config, ConfigInput } from './config.js';
export type { RunningMockyard, ScenarioHandle } from './server.js';
export { ScenarioError } from './scenarios/errors.js';
export { ScenarioBodySchema, type ScenarioBody } from './scenarios/schema.js';

export interface StartOptions extends ConfigInput {
  /** Receives fixture build progress lines; silent by default. */
  onProgress?: (message: string) => void;
  /** Scenarios to load at start, by name: `{ 'three-releases': { appcenter: {...} } }`. */
  scenarios?: Record<string, unknown>;
}

/**
 * Starts mockyard and resolves once it answers. Unlike the CLI it picks a free port (port 0)
 * and logs only warnings unless told otherwise.
 *
 *   const { url, close } = await startMockyard();
 *   // fetch(`${url}/dkan/datastore/query/...`)
 *   await close();
 */
export async function startMockyard(options: StartOptions = {}): Promise<RunningMockyard> {
  const { onProgress, scenarios, ...input } = options;
  const config: Config = resolveConfig({ port: 0, logLevel: 'warn', ...input });
  return startServer(config, onProgress, { scenarios });
}
