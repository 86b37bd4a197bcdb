// Builds the fixture database once, before any worker opens it.
import { resolveConfig } from '../src/config.js';
import { ensureFixtures } from '../src/server.js';

export default async function setup(): Promise<void> {
  const config = resolveConfig({});
  const result = await ensureFixtures(config, (m) => process.stderr.write(`fixtures: ${m}\n`));
  process.stderr.write(
    `fixtures: ${result.built ? 'built' : 'reused'} ${result.dbPath} (${result.seconds.toFixed(2)}s)\n`,
  );
}
