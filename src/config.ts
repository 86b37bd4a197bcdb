// One table of options feeds the CLI flags, the environment variables, the README table and the typed config.
import path from 'node:path';
import { packageRoot } from './paths.js';
import type { AreaName } from '../fixtures/types.js';

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
  dkanCsvHeaders: 'resource_headers' | 'machine_names';
  hostMap: readonly HostMapping[];
  tlsPort: number | null;
  caDir: string | null;
  queryTimeout: number;
  scenariosDir: string | null;
  scenario: string | null;
  /** --mappings: a WireMock directory (mappings/, __files/). */
  mappings: string | null;
  recordTo: string | null;
}

export interface HostMapping {
  host: string;
  area: AreaName;
}

const AREA_NAMES: readonly AreaName[] = ['archive', 'marketcheck', 'appcenter', 'agco', 'dkan'];

export type ConfigInput = { [K in keyof Config]?: Config[K] | string };

interface OptionSpec<K extends keyof Config> {
  key: K;
  flag: string;
  env: string;
  /** The value when no source sets it. */
  default: Config[K];
  /** How README and --help show the default, when the value itself does not say it well. */
  shown?: string;
  description: string;
  /** Text from a flag or the environment to a checked value. */
  parse(raw: string): Config[K];
  /** A value given typed (startMockyard options): checked against the same rules, returned as stored. */
  check(value: unknown): Config[K];
  boolean?: true;
}

const wholeNumber = (name: string, min: number, max: number) => {
  const check = (value: unknown): number => {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
      throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${String(value)}"`);
    }
    return value;
  };
  return {
    check,
    parse: (raw: string): number => {
      if (!/^-?\d+$/.test(raw.trim()))
        throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
      return check(Number(raw));
    },
  };
};

const flag = (name: string) => ({
  check: (value: unknown): boolean => {
    if (typeof value !== 'boolean') throw new ConfigError(`${name} must be true or false, got "${String(value)}"`);
    return value;
  },
  parse: (raw: string): boolean => {
    const v = raw.trim().toLowerCase();
    if (['1', 'true', 'yes', 'on', ''].includes(v)) return true;
    if (['0', 'false', 'no', 'off'].includes(v)) return false;
    throw new ConfigError(`${name} must be true or false, got "${raw}"`);
  },
});

const stringList = (name: string, item: (s: string) => string = (s) => s) => {
  const check = (value: unknown): readonly string[] => {
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string'))
      throw new ConfigError(`${name} must be a list of strings`);
    return Object.freeze(value.map((v: string) => item(v.trim())).filter((v) => v.length > 0));
  };
  return { check, parse: (raw: string) => check(raw.split(',')) };
};

/** null is "off" (or "unset"); anything else goes through `inner`. */
const orOff = <T>(
  inner: { parse(raw: string): T; check(value: unknown): T },
  offWords: readonly string[] = ['off'],
) => ({
  parse: (raw: string): T | null => (offWords.includes(raw.trim()) ? null : inner.parse(raw)),
  check: (value: unknown): T | null => (value === null ? null : inner.check(value)),
});

const text = (name: string, rule: (s: string) => string) => ({
  parse: rule,
  check: (value: unknown): string => {
    if (typeof value !== 'string') throw new ConfigError(`${name} must be text, got "${String(value)}"`);
    return rule(value);
  },
});

const folder = (name: string) =>
  text(name, (raw) => {
    if (raw.trim() === '') throw new ConfigError(`${name} must not be empty`);
    return path.resolve(raw);
  });

const latencyRange = {
  parse: (raw: string): readonly [number, number] => {
    const m = /^(\d{1,6})(?:-(\d{1,6}))?$/.exec(raw.trim());
    if (!m) throw new ConfigError(`latency must be milliseconds or a range like 50-200, got "${raw}"`);
    return latencyRange.check([Number(m[1]), Number(m[2] ?? m[1])]);
  },
  check: (value: unknown): readonly [number, number] => {
    const ok =
      Array.isArray(value) &&
      value.length === 2 &&
      value.every((v) => Number.isSafeInteger(v) && v >= 0 && v <= 999_999);
    if (!ok) throw new ConfigError(`latency must be milliseconds or a [low, high] range, got "${String(value)}"`);
    const [min, max] = value as [number, number];
    if (max < min) throw new ConfigError(`latency range must be low-high, got "${min}-${max}"`);
    return Object.freeze([min, max] as const);
  },
};

const percentage = (name: string) => {
  const check = (value: unknown): number => {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 100) {
      throw new ConfigError(`${name} must be a percentage from 0 to 100, got "${String(value)}"`);
    }
    return value;
  };
  return { check, parse: (raw: string) => check(raw.trim() === '' ? NaN : Number(raw)) };
};

/** name=area entries; a typed value may also be a list of {host, area}. */
const hostMappings = (() => {
  const entry = (text: string): HostMapping => {
    const m = /^(\*\.)?([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*)=([a-z]+)$/.exec(text.trim());
    if (!m || !(AREA_NAMES as readonly string[]).includes(m[3]!)) {
      throw new ConfigError(
        `host map entries must be name=area with area one of ${AREA_NAMES.join(', ')}, got "${text}"`,
      );
    }
    return Object.freeze({ host: `${m[1] ?? ''}${m[2]!.toLowerCase()}`, area: m[3] as AreaName });
  };
  const check = (value: unknown): readonly HostMapping[] => {
    if (!Array.isArray(value)) throw new ConfigError('host map must be a list of name=area entries');
    return Object.freeze(
      value.map((v: unknown) =>
        typeof v === 'object' && v !== null
          ? entry(`${(v as HostMapping).host}=${(v as HostMapping).area}`)
          : entry(String(v)),
      ),
    );
  };
  return { check, parse: (raw: string) => check(raw.split(',').filter((e) => e.trim() !== '')) };
})();

const option = <K extends keyof Config>(spec: OptionSpec<K>) => spec;

export const OPTIONS = [
  option({
    key: 'host',
    flag: '--host <host>',
    env: 'MOCKYARD_HOST',
    default: '127.0.0.1',
    description: 'Address to listen on (the Docker image uses 0.0.0.0).',
    ...text('host', (raw) => {
      if (!/^[A-Za-z0-9.:\-[\]]+$/.test(raw))
        throw new ConfigError(`host must be a host name or IP address, got "${raw}"`);
      return raw;
    }),
  }),
  option({
    key: 'port',
    flag: '--port <port>',
    env: 'MOCKYARD_PORT',
    default: 4010,
    description: 'Port for all areas under their prefixes; 0 picks a free port and prints the URL.',
    ...wholeNumber('port', 0, 65535),
  }),
  option({
    key: 'logLevel',
    flag: '--log-level <level>',
    env: 'MOCKYARD_LOG_LEVEL',
    default: 'info',
    description: `One of ${LOG_LEVELS.join(', ')}. Pretty output on a terminal, JSON lines otherwise.`,
    ...(text('log level', (raw) => {
      if (!(LOG_LEVELS as readonly string[]).includes(raw))
        throw new ConfigError(`log level must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
      return raw;
    }) as { parse(raw: string): LogLevel; check(value: unknown): LogLevel }),
  }),
  option({
    key: 'quiet',
    flag: '--quiet',
    env: 'MOCKYARD_QUIET',
    default: false,
    boolean: true,
    description:
      'No line per request. On a terminal each request is otherwise logged at info (method, path, status, ms, area).',
    ...flag('quiet'),
  }),
  option({
    key: 'dataDir',
    flag: '--data-dir <dir>',
    env: 'MOCKYARD_DATA_DIR',
    default: path.join(packageRoot(), 'data'),
    shown: '<package>/data',
    description: 'Where the fixture database and generated files live.',
    ...folder('data dir'),
  }),
  option({
    key: 'seed',
    flag: '--seed <n>',
    env: 'MOCKYARD_SEED',
    default: 1337,
    description: 'Fixture seed. The same seed gives byte-identical responses on any machine.',
    ...wholeNumber('seed', 0, 2 ** 31 - 1),
  }),
  option({
    key: 'scale',
    flag: '--scale <n>',
    env: 'MOCKYARD_SCALE',
    default: 1,
    description:
      'Data scale: multiplies generated row counts (10 gives the 1,000,000-row DKAN dataset and the 1 GiB archive file).',
    ...wholeNumber('scale', 1, 100),
  }),
  option({
    key: 'corsOrigins',
    flag: '--cors-origins <list>',
    env: 'MOCKYARD_CORS_ORIGINS',
    default: Object.freeze(['*']),
    shown: '*',
    description:
      'Comma list of browser origins allowed by CORS; * reflects any origin but null on area routes (with credentials). Admin routes (/__mockyard/*) answer only origins listed by name.',
    ...stringList('cors origins', (o) => {
      if (o !== '*' && !/^https?:\/\/[^/\s]+$/.test(o))
        throw new ConfigError(`cors origin must be * or like http://localhost:3000, got "${o}"`);
      return o;
    }),
  }),
  option({
    key: 'areaPorts',
    flag: '--area-ports <first>',
    env: 'MOCKYARD_AREA_PORTS',
    default: null,
    description:
      'Also serve each area at the root path of its own port: archive on <first>, marketcheck +1, appcenter +2, agco +3, dkan +4.',
    ...orOff(wholeNumber('area ports', 1, 65531)),
  }),
  option({
    key: 'watch',
    flag: '--watch',
    env: 'MOCKYARD_WATCH',
    default: false,
    boolean: true,
    description: 'Rebuild the fixture database when fixture files change and swap it in without a restart.',
    ...flag('watch'),
  }),
  option({
    key: 'admin',
    flag: '--admin <on|off>',
    env: 'MOCKYARD_ADMIN',
    default: true,
    description: 'Serve the /__mockyard admin routes (journal, reset). Health and the catalog stay on.',
    ...flag('admin'),
  }),
  option({
    key: 'adminToken',
    flag: '--admin-token <token>',
    env: 'MOCKYARD_ADMIN_TOKEN',
    default: null,
    shown: 'unset',
    description: 'When set, admin routes require `Authorization: Bearer <token>`.',
    ...orOff(
      text('admin token', (raw) => raw),
      [''],
    ),
  }),
  option({
    key: 'journalSize',
    flag: '--journal-size <n>',
    env: 'MOCKYARD_JOURNAL_SIZE',
    default: 1000,
    description: 'How many requests the request journal keeps (oldest dropped first); 0 turns it off.',
    ...wholeNumber('journal size', 0, 1_000_000),
  }),
  option({
    key: 'latency',
    flag: '--latency <ms|min-max>',
    env: 'MOCKYARD_LATENCY',
    default: null,
    description: 'Delay every area response by this many milliseconds (a range picks a seeded value per request).',
    ...orOff(latencyRange, ['off', '0']),
  }),
  option({
    key: 'errorRate',
    flag: '--error-rate <percent>',
    env: 'MOCKYARD_ERROR_RATE',
    default: 0,
    description:
      "Percentage of area requests answered with a forced error (the operation's documented failure status).",
    ...percentage('error rate'),
  }),
  option({
    key: 'faultSeed',
    flag: '--fault-seed <n>',
    env: 'MOCKYARD_FAULT_SEED',
    default: 1,
    description: 'Seed for the latency and error-rate draws, so a run is reproducible.',
    ...wholeNumber('fault seed', 0, 2 ** 31 - 1),
  }),
  option({
    key: 'archiveRedirect',
    flag: '--archive-redirect',
    env: 'MOCKYARD_ARCHIVE_REDIRECT',
    default: false,
    boolean: true,
    description: 'Archive /download answers 302 to a data-node path on the mock, as archive.org does.',
    ...flag('archive redirect'),
  }),
  option({
    key: 'marketcheckApiKeys',
    flag: '--marketcheck-api-keys <list>',
    env: 'MOCKYARD_MARKETCHECK_API_KEYS',
    default: Object.freeze([]),
    shown: 'any non-empty key',
    description: 'Comma list of the only api_key values MarketCheck accepts.',
    ...stringList('marketcheck api keys'),
  }),
  option({
    key: 'marketcheckRateLimit',
    flag: '--marketcheck-rate-limit <rps>',
    env: 'MOCKYARD_MARKETCHECK_RATE_LIMIT',
    default: 0,
    shown: '0 (off)',
    description: "Emulate MarketCheck's rate limit: above this many requests per second per key, 429.",
    ...wholeNumber('marketcheck rate limit', 0, 1_000_000),
  }),
  option({
    key: 'agcoTokens',
    flag: '--agco-tokens <list>',
    env: 'MOCKYARD_AGCO_TOKENS',
    default: Object.freeze([]),
    shown: 'any non-empty token',
    description: 'Comma list of the only bearer tokens AGCO accepts.',
    ...stringList('agco tokens'),
  }),
  option({
    key: 'dkanCsvDir',
    flag: '--dkan-csv-dir <dir>',
    env: 'MOCKYARD_DKAN_CSV_DIR',
    default: null,
    shown: 'unset',
    description: 'Every *.csv file in this folder becomes a DKAN dataset (id derived from the file name).',
    ...orOff(folder('dkan csv dir'), ['']),
  }),
  option({
    key: 'dkanMaxLimit',
    flag: '--dkan-max-limit <n>',
    env: 'MOCKYARD_DKAN_MAX_LIMIT',
    default: 10000,
    description: "Largest DKAN `limit`; above it a 400 in DKAN's error body.",
    ...wholeNumber('dkan max limit', 1, 1_000_000),
  }),
  option({
    key: 'dkanCacheSize',
    flag: '--dkan-cache-size <n>',
    env: 'MOCKYARD_DKAN_CACHE_SIZE',
    default: 500,
    description: 'How many DKAN answers are kept for repeated identical queries; 0 turns the cache off.',
    ...wholeNumber('dkan cache size', 0, 100_000),
  }),
  option({
    key: 'dkanCsvHeaders',
    flag: '--dkan-csv-headers <mode>',
    env: 'MOCKYARD_DKAN_CSV_HEADERS',
    default: 'resource_headers',
    description:
      "DKAN's csv_headers_mode: CSV header rows show column descriptions (resource_headers) or machine names (machine_names).",
    ...(text('dkan csv headers', (raw) => {
      if (raw !== 'resource_headers' && raw !== 'machine_names')
        throw new ConfigError(`dkan csv headers must be resource_headers or machine_names, got "${raw}"`);
      return raw;
    }) as { parse(raw: string): Config['dkanCsvHeaders']; check(value: unknown): Config['dkanCsvHeaders'] }),
  }),
  option({
    key: 'hostMap',
    flag: '--host-map <list>',
    env: 'MOCKYARD_HOST_MAP',
    default: Object.freeze([]),
    shown: 'none',
    description:
      'More real host names, as name=area (e.g. data.example.gov=dkan, *.example.gov=dkan), served like the built-in ones; see "Use the real host names".',
    ...hostMappings,
  }),
  option({
    key: 'tlsPort',
    flag: '--tls-port <port>',
    env: 'MOCKYARD_TLS_PORT',
    default: null,
    description:
      'Also serve everything over HTTPS on this port, with a certificate from the local CA for localhost, 127.0.0.1 and every real or mapped host.',
    ...orOff(wholeNumber('tls port', 0, 65535)),
  }),
  option({
    key: 'caDir',
    flag: '--ca-dir <dir>',
    env: 'MOCKYARD_CA_DIR',
    default: null,
    shown: '<data-dir>/ca',
    description:
      'Where the local certificate authority (made on first use, key mode 0600) is kept; `mockyard ca` prints how to trust it.',
    ...orOff(folder('ca dir'), ['']),
  }),
  option({
    key: 'queryTimeout',
    flag: '--query-timeout <ms>',
    env: 'MOCKYARD_QUERY_TIMEOUT',
    default: 5000,
    description:
      "Work budget of one DKAN query or AGCO search, in milliseconds; longer ones get the area's error (DKAN 400, busy 503).",
    ...wholeNumber('query timeout', 100, 600_000),
  }),
  option({
    key: 'scenariosDir',
    flag: '--scenarios-dir <dir>',
    env: 'MOCKYARD_SCENARIOS_DIR',
    default: null,
    shown: 'unset',
    description:
      'Load every <dir>/{name}.json as scenario {name} at start-up; with --watch, reload a file when it changes.',
    ...orOff(folder('scenarios dir'), ['']),
  }),
  option({
    key: 'mappings',
    flag: '--mappings <dir>',
    env: 'MOCKYARD_MAPPINGS',
    default: null,
    shown: 'unset',
    description:
      "WireMock stub mappings to load at start-up, in WireMock's layout: <dir>/mappings/**/*.json and <dir>/__files/ (docs/stubs.md).",
    ...orOff(folder('mappings dir'), ['']),
  }),
  option({
    key: 'recordTo',
    flag: '--record-to <dir>',
    env: 'MOCKYARD_RECORD_TO',
    default: null,
    shown: 'unset',
    description:
      'Write every exchange passed to an upstream (proxyBaseUrl stubs, /__admin/recordings) as a mapping file under <dir>/mappings/, secrets masked.',
    ...orOff(folder('record-to dir'), ['']),
  }),
  option({
    key: 'scenario',
    flag: '--scenario <name>',
    env: 'MOCKYARD_SCENARIO',
    default: null,
    shown: 'unset',
    description: 'The scenario of requests that name none (no Mockyard-Scenario header, no /scenarios/{name} prefix).',
    ...orOff(
      text('scenario', (raw) => {
        if (!/^[A-Za-z0-9._-]{1,64}$/.test(raw))
          throw new ConfigError(`scenario must be a name of 1 to 64 characters [A-Za-z0-9._-], got "${raw}"`);
        return raw;
      }),
      [''],
    ),
  }),
];

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
