// The option table: one entry per option feeds the CLI flags, the environment variables, the README table
// and the typed config (config.ts).
import path from 'node:path';
import type { Config } from './config.js';
import { packageRoot } from './paths.js';
import {
  ConfigError,
  LOG_FORMATS,
  LOG_LEVELS,
  type LogFormat,
  type LogLevel,
  type OptionSpec,
  flag,
  folder,
  hostMappings,
  latencyRange,
  orOff,
  percentage,
  stringList,
  text,
  wholeNumber,
} from './config-rules.js';

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
    description: `One of ${LOG_LEVELS.join(', ')}.`,
    ...(text('log level', (raw) => {
      if (!(LOG_LEVELS as readonly string[]).includes(raw))
        throw new ConfigError(`log level must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
      return raw;
    }) as { parse(raw: string): LogLevel; check(value: unknown): LogLevel }),
  }),
  option({
    key: 'logFormat',
    flag: '--log-format <format>',
    env: 'MOCKYARD_LOG_FORMAT',
    default: null,
    shown: 'pretty on a terminal, json otherwise',
    description: `One of ${LOG_FORMATS.join(', ')} or auto: JSON lines (one object per line, for log collectors) or pretty text.`,
    ...orOff(
      text('log format', (raw) => {
        if (!(LOG_FORMATS as readonly string[]).includes(raw))
          throw new ConfigError(`log format must be one of ${LOG_FORMATS.join(', ')} or auto, got "${raw}"`);
        return raw;
      }) as { parse(raw: string): LogFormat; check(value: unknown): LogFormat },
      ['auto'],
    ),
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
      'Also serve each area at the root path of its own port: archive on <first>, marketcheck +1, appcenter +2, agco +3, dkan +4; 0 gives each area a free port of its own.',
    ...orOff(wholeNumber('area ports', 0, 65531)),
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
    key: 'allowedHosts',
    flag: '--allowed-hosts <list>',
    env: 'MOCKYARD_ALLOWED_HOSTS',
    default: Object.freeze([]),
    shown: 'none',
    description:
      'Comma list of more host names the admin routes answer to (e.g. a Docker service name). They always answer localhost, IP addresses and --host; other Host headers get 403 (DNS rebinding).',
    ...stringList('allowed hosts', (h) => {
      if (!/^[a-z0-9.-]+$/i.test(h) && h !== '*')
        throw new ConfigError(`allowed host must be a host name like mockyard or * (any), got "${h}"`);
      return h.toLowerCase().replace(/\.$/, '');
    }),
  }),
  option({
    key: 'headersTimeout',
    flag: '--headers-timeout <ms>',
    env: 'MOCKYARD_HEADERS_TIMEOUT',
    default: 10_000,
    description: 'A client has this long to send all of its request headers; then its connection is closed (408).',
    ...wholeNumber('headers timeout', 100, 600_000),
  }),
  option({
    key: 'bodyTimeout',
    flag: '--body-timeout <ms>',
    env: 'MOCKYARD_BODY_TIMEOUT',
    default: 30_000,
    description: 'A client has this long to send a whole request (headers and body); then it gets 408.',
    ...wholeNumber('body timeout', 100, 3_600_000),
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
    key: 'journalBodyBytes',
    flag: '--journal-body-bytes <n>',
    env: 'MOCKYARD_JOURNAL_BODY_BYTES',
    default: 4096,
    description:
      'How much of each request and response body the journal keeps (masked; longer bodies are cut and marked); 0 keeps none.',
    ...wholeNumber('journal body bytes', 0, 1_048_576),
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
    description:
      'Whether DKAN answers enter the answer cache (--answer-cache-mb): 0 keeps them out, so every DKAN query runs; any other number lets them in.',
    ...wholeNumber('dkan cache size', 0, 100_000),
  }),
  option({
    key: 'answerCacheMb',
    flag: '--answer-cache-mb <n>',
    env: 'MOCKYARD_ANSWER_CACHE_MB',
    default: 32,
    description:
      'Megabytes of finished answers kept for repeated identical requests, in every area (least recently used dropped first; emptied when the data or a scenario changes); 0 turns the cache off.',
    ...wholeNumber('answer cache size', 0, 4096),
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
