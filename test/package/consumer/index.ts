// Compiled by scripts/check-package.sh in a separate project against the packed package's .d.ts files,
// under `strict` and without skipLibCheck: what a TypeScript user of `mockyard` compiles.
import {
  startMockyard,
  resolveConfig,
  ConfigError,
  type Config,
  type RunningMockyard,
  type StartOptions,
} from 'mockyard';

const options: StartOptions = {
  seed: 1337,
  latency: '5-10',
  agcoTokens: ['t'],
  onProgress: (m: string) => console.log(m),
};
const running: RunningMockyard = await startMockyard(options);
const config: Config = resolveConfig({ port: 0 });
const dkan: string | undefined = running.areaUrls.dkan;
const total: number = running.runtime.journal.list({ area: 'dkan' }).total;
console.log(running.url, dkan, config.port, total, new ConfigError('x').message);
await running.close();
