// One table of options feeds the CLI flags, the environment variables, the README table and the typed config.
import path from 'node:path';
import { OPTIONS } from './config-options.js';
import { ConfigError } from './config-rules.js';
import {
  LOG_FORMATS,
  LOG_LEVELS,
  type Config,
  type ConfigInput,
  type LogFormat,
  type LogLevel,
} from './config-types.js';

export type { Config, ConfigInput, HostMapping } from './config-types.js';
export { ConfigError, LOG_FORMATS, LOG_LEVELS, OPTIONS, type LogFormat, type LogLevel };

/** The local certificate authority's folder: --ca-dir, else <data-dir>/ca. */
export function caDirOf(config: Config): string {
  return config.caDir ?? path.join(config.dataDir, 'ca');
}

/** How README and --help show an option's default. */
export function defaultText(spec: (typeof OPTIONS)[number]): string {
  if (spec.shown !== undefined) return spec.shown;
  const value: unknown = spec.default;
  if (value === null) return 'off';
  return Array.isArray(value) ? value.join(',') : String(value);
}

export const DEFAULTS: Config = Object.freeze(
  Object.fromEntries(OPTIONS.map((spec) => [spec.key, spec.default])),
) as unknown as Config;

/**
 * Layers: defaults < config file (`--config`) < environment < explicit values (CLI flags or startMockyard
 * options). Text is parsed by the option's parser; typed values are checked by the same rules, never
 * turned back into text.
 */
export function resolveConfig(
  input: ConfigInput = {},
  env: NodeJS.ProcessEnv = process.env,
  file: ConfigInput = {},
): Config {
  for (const key of [...Object.keys(input), ...Object.keys(file)]) {
    if (!(key in DEFAULTS)) throw new ConfigError(`unknown option "${key}"`);
  }
  const out: Record<string, unknown> = { ...DEFAULTS };
  for (const spec of OPTIONS) {
    const take = (given: unknown) => {
      if (given !== undefined) out[spec.key] = typeof given === 'string' ? spec.parse(given) : spec.check(given);
    };
    take(file[spec.key]);
    const fromEnv = env[spec.env];
    if (fromEnv !== undefined) out[spec.key] = spec.parse(fromEnv);
    take(input[spec.key]);
  }
  return Object.freeze(out) as unknown as Config;
}

/** The README's option table, generated from OPTIONS so the two cannot drift apart. */
export function renderOptionsTable(): string {
  const rows = OPTIONS.map((spec) => {
    const flag = spec.flag.replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\|/g, '\\|');
    return `| \`${spec.key}\` | ${flag} | \`${spec.env}\` | ${defaultText(spec).replace(/</g, '&lt;').replace(/>/g, '&gt;')} | ${spec.description.replace(/\|/g, '\\|')} |`;
  });
  return ['| option | flag | environment | default | meaning |', '|---|---|---|---|---|', ...rows].join('\n');
}
