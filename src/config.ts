// One table of options feeds the CLI flags, the environment variables, the README table and the typed config.
import path from 'node:path';
import { packageRoot } from './paths.js';

export class ConfigError extends Error {}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Config {
  host: string;
  port: number;
  logLevel: LogLevel;
  quiet: boolean;
  dataDir: string;
  seed: number;
  scale: number;
  corsOrigins: readonly string[];
  areaPorts: number | null;
  watch: boolean;
  admin: boolean;
  adminToken: string | null;
  journalSize: number;
  latency: readonly [number, number] | null;
  errorRate: number;
  faultSeed: number;
  archiveRedirect: boolean;
  marketcheckApiKeys: readonly string[];
  marketcheckRateLimit: number;
  agcoTokens: readonly string[];
  dkanCsvDir: string | null;
  dkanMaxLimit: number;
  dkanCacheSize: number;
}

export type ConfigInput = { [K in keyof Config]?: Config[K] | string };

interface OptionSpec<K extends keyof Config> {
  key: K;
  flag: string;
  env: string;
  /** Shown in README and --help; `undefined` default means "unset". */
  defaultText: string;
  description: string;
  parse(raw: string): Config[K];
  boolean?: true;
}

function int(name: string, min: number, max: number) {
  return (raw: string): number => {
    const value = Number(raw);
    if (!/^-?\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < min || value > max) {
      throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
    }
    return value;
  };
}

function bool(name: string) {
  return (raw: string): boolean => {
    const v = raw.trim().toLowerCase();
    if (['1', 'true', 'yes', 'on', ''].includes(v)) return true;
    if (['0', 'false', 'no', 'off'].includes(v)) return false;
    throw new ConfigError(`${name} must be true or false, got "${raw}"`);
  };
}

function list(raw: string): string[] {
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

const option = <K extends keyof Config>(spec: OptionSpec<K>) => spec;

export const OPTIONS = [
  option({
    key: 'host', flag: '--host <host>', env: 'MOCKYARD_HOST', defaultText: '127.0.0.1',
    description: 'Address to listen on (the Docker image uses 0.0.0.0).',
    parse: (raw) => {
      if (!/^[A-Za-z0-9.:\-[\]]+$/.test(raw)) throw new ConfigError(`host must be a host name or IP address, got "${raw}"`);
      return raw;
    },
  }),
  option({
    key: 'port', flag: '--port <port>', env: 'MOCKYARD_PORT', defaultText: '4010',
    description: 'Port for all areas under their prefixes; 0 picks a free port and prints the URL.',
    parse: int('port', 0, 65535),
  }),
  option({
    key: 'logLevel', flag: '--log-level <level>', env: 'MOCKYARD_LOG_LEVEL', defaultText: 'info',
    description: `One of ${LOG_LEVELS.join(', ')}. Pretty output on a terminal, JSON lines otherwise.`,
    parse: (raw) => {
      if (!(LOG_LEVELS as readonly string[]).includes(raw)) {
        throw new ConfigError(`log level must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
      }
      return raw as LogLevel;
    },
  }),
  option({
    key: 'quiet', flag: '--quiet', env: 'MOCKYARD_QUIET', defaultText: 'false', boolean: true,
    description: 'No line per request. On a terminal each request is otherwise logged at info (method, path, status, ms, area).',
    parse: bool('quiet'),
  }),
  option({
    key: 'dataDir', flag: '--data-dir <dir>', env: 'MOCKYARD_DATA_DIR', defaultText: '<package>/data',
    description: 'Where the fixture database and generated files live.',
    parse: (raw) => {
      if (raw.trim() === '') throw new ConfigError('data dir must not be empty');
      return path.resolve(raw);
    },
  }),
  option({
    key: 'seed', flag: '--seed <n>', env: 'MOCKYARD_SEED', defaultText: '1337',
    description: 'Fixture seed. The same seed gives byte-identical responses on any machine.',
    parse: int('seed', 0, 2 ** 31 - 1),
  }),
  option({
    key: 'scale', flag: '--scale <n>', env: 'MOCKYARD_SCALE', defaultText: '1',
    description: 'Data scale: multiplies generated row counts (10 gives the 1,000,000-row DKAN dataset and the 1 GiB archive file).',
    parse: int('scale', 1, 100),
  }),
  option({
    key: 'corsOrigins', flag: '--cors-origins <list>', env: 'MOCKYARD_CORS_ORIGINS', defaultText: '*',
    description: 'Comma list of browser origins allowed by CORS; * reflects any origin (credentials work either way).',
    parse: (raw) => {
      const origins = list(raw);
      for (const o of origins) {
        if (o !== '*' && !/^https?:\/\/[^/\s]+$/.test(o)) {
          throw new ConfigError(`cors origin must be * or like http://localhost:3000, got "${o}"`);
        }
      }
      return origins;
    },
  }),
  option({
    key: 'areaPorts', flag: '--area-ports <first>', env: 'MOCKYARD_AREA_PORTS', defaultText: 'off',
    description: 'Also serve each area at the root path of its own port: archive on <first>, marketcheck +1, appcenter +2, agco +3, dkan +4.',
    parse: (raw) => (raw === 'off' ? null : int('area ports', 1, 65531)(raw)),
  }),
  option({
    key: 'watch', flag: '--watch', env: 'MOCKYARD_WATCH', defaultText: 'false', boolean: true,
    description: 'Rebuild the fixture database when fixture files change and swap it in without a restart.',
    parse: bool('watch'),
  }),
  option({
    key: 'admin', flag: '--admin <on|off>', env: 'MOCKYARD_ADMIN', defaultText: 'true',
    description: 'Serve the /__mockyard admin routes (journal, reset). Health and the catalog stay on.',
    parse: bool('admin'),
  }),
  option({
    key: 'adminToken', flag: '--admin-token <token>', env: 'MOCKYARD_ADMIN_TOKEN', defaultText: 'unset',
    description: 'When set, admin routes require `Authorization: Bearer <token>`.',
    parse: (raw) => (raw === '' ? null : raw),
  }),
  option({
    key: 'journalSize', flag: '--journal-size <n>', env: 'MOCKYARD_JOURNAL_SIZE', defaultText: '1000',
    description: 'How many requests the request journal keeps (oldest dropped first); 0 turns it off.',
    parse: int('journal size', 0, 1_000_000),
  }),
  option({
    key: 'latency', flag: '--latency <ms|min-max>', env: 'MOCKYARD_LATENCY', defaultText: 'off',
    description: 'Delay every area response by this many milliseconds (a range picks a seeded value per request).',
    parse: (raw) => {
      if (raw === 'off' || raw === '0') return null;
      const m = /^(\d{1,6})(?:-(\d{1,6}))?$/.exec(raw.trim());
      if (!m) throw new ConfigError(`latency must be milliseconds or a range like 50-200, got "${raw}"`);
      const min = Number(m[1]);
      const max = m[2] === undefined ? min : Number(m[2]);
      if (max < min) throw new ConfigError(`latency range must be low-high, got "${raw}"`);
      return [min, max] as const;
    },
  }),
  option({
    key: 'errorRate', flag: '--error-rate <percent>', env: 'MOCKYARD_ERROR_RATE', defaultText: '0',
    description: 'Percentage of area requests answered with a forced error (the operation\'s documented failure status).',
    parse: (raw) => {
      const v = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(v) || v < 0 || v > 100) {
        throw new ConfigError(`error rate must be a percentage from 0 to 100, got "${raw}"`);
      }
      return v;
    },
  }),
  option({
    key: 'faultSeed', flag: '--fault-seed <n>', env: 'MOCKYARD_FAULT_SEED', defaultText: '1',
    description: 'Seed for the latency and error-rate draws, so a run is reproducible.',
    parse: int('fault seed', 0, 2 ** 31 - 1),
  }),
  option({
    key: 'archiveRedirect', flag: '--archive-redirect', env: 'MOCKYARD_ARCHIVE_REDIRECT', defaultText: 'false', boolean: true,
    description: 'Archive /download answers 302 to a data-node path on the mock, as archive.org does.',
    parse: bool('archive redirect'),
  }),
  option({
    key: 'marketcheckApiKeys', flag: '--marketcheck-api-keys <list>', env: 'MOCKYARD_MARKETCHECK_API_KEYS', defaultText: 'any non-empty key',
    description: 'Comma list of the only api_key values MarketCheck accepts.',
    parse: list,
  }),
  option({
    key: 'marketcheckRateLimit', flag: '--marketcheck-rate-limit <rps>', env: 'MOCKYARD_MARKETCHECK_RATE_LIMIT', defaultText: '0 (off)',
    description: 'Emulate MarketCheck\'s rate limit: above this many requests per second per key, 429.',
    parse: int('marketcheck rate limit', 0, 1_000_000),
  }),
  option({
    key: 'agcoTokens', flag: '--agco-tokens <list>', env: 'MOCKYARD_AGCO_TOKENS', defaultText: 'any non-empty token',
    description: 'Comma list of the only bearer tokens AGCO accepts.',
    parse: list,
  }),
  option({
    key: 'dkanCsvDir', flag: '--dkan-csv-dir <dir>', env: 'MOCKYARD_DKAN_CSV_DIR', defaultText: 'unset',
    description: 'Every *.csv file in this folder becomes a DKAN dataset (id derived from the file name).',
    parse: (raw) => (raw.trim() === '' ? null : path.resolve(raw)),
  }),
  option({
    key: 'dkanMaxLimit', flag: '--dkan-max-limit <n>', env: 'MOCKYARD_DKAN_MAX_LIMIT', defaultText: '10000',
    description: 'Largest DKAN `limit`; above it a 400 in DKAN\'s error body.',
    parse: int('dkan max limit', 1, 1_000_000),
  }),
  option({
    key: 'dkanCacheSize', flag: '--dkan-cache-size <n>', env: 'MOCKYARD_DKAN_CACHE_SIZE', defaultText: '500',
    description: 'How many DKAN answers are kept for repeated identical queries; 0 turns the cache off.',
    parse: int('dkan cache size', 0, 100_000),
  }),
];

export const DEFAULTS: Config = Object.freeze({
  host: '127.0.0.1',
  port: 4010,
  logLevel: 'info',
  quiet: false,
  dataDir: path.join(packageRoot(), 'data'),
  seed: 1337,
  scale: 1,
  corsOrigins: Object.freeze(['*']),
  areaPorts: null,
  watch: false,
  admin: true,
  adminToken: null,
  journalSize: 1000,
  latency: null,
  errorRate: 0,
  faultSeed: 1,
  archiveRedirect: false,
  marketcheckApiKeys: Object.freeze([]),
  marketcheckRateLimit: 0,
  agcoTokens: Object.freeze([]),
  dkanCsvDir: null,
  dkanMaxLimit: 10000,
  dkanCacheSize: 500,
});

/**
 * Layers: defaults < config file (`--config`) < environment < explicit values (CLI flags or
 * startMockyard options). String values are parsed by the option's own parser; typed values are
 * checked the same way.
 */
export function resolveConfig(input: ConfigInput = {}, env: NodeJS.ProcessEnv = process.env, file: ConfigInput = {}): Config {
  const out: Record<string, unknown> = { ...DEFAULTS };
  const apply = (spec: (typeof OPTIONS)[number], given: unknown) => {
    if (typeof given === 'string') {
      out[spec.key] = (spec.parse as (r: string) => unknown)(given);
    } else if (Array.isArray(given) && typeof DEFAULTS[spec.key] !== 'object') {
      throw new ConfigError(`${spec.key} must not be a list`);
    } else {
      // Typed values go through the same checks as their text form.
      const text =
        given === null ? 'off' : Array.isArray(given) ? given.join(spec.key === 'latency' ? '-' : ',') : String(given);
      out[spec.key] = (spec.parse as (r: string) => unknown)(text);
    }
  };
  for (const spec of OPTIONS) {
    if (file[spec.key] !== undefined) apply(spec, file[spec.key]);
    const fromEnv = env[spec.env];
    if (fromEnv !== undefined) out[spec.key] = (spec.parse as (r: string) => unknown)(fromEnv);
    if (input[spec.key] !== undefined) apply(spec, input[spec.key]);
  }
  for (const key of Object.keys(input)) {
    if (!(key in DEFAULTS)) throw new ConfigError(`unknown option "${key}"`);
  }
  return Object.freeze(out) as unknown as Config;
}

/** The README's option table, generated from OPTIONS so the two cannot drift apart. */
export function renderOptionsTable(): string {
  const rows = OPTIONS.map((spec) => {
    const flag = spec.flag.replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\|/g, '\\|');
    return `| \`${spec.key}\` | ${flag} | \`${spec.env}\` | ${spec.defaultText.replace(/</g, '&lt;').replace(/>/g, '&gt;')} | ${spec.description.replace(/\|/g, '\\|')} |`;
  });
  return ['| option | flag | environment | default | meaning |', '|---|---|---|---|---|', ...rows].join('\n');
}
