// The option table, continued (see config-options.ts): how the areas answer.
import {
  ConfigError,
  folder,
  hostMappings,
  latencyRange,
  option,
  orOff,
  percentage,
  stringList,
  text,
  wholeNumber,
  flag,
} from './config-rules.js';
import type { Config } from './config-types.js';

/** Delays, forced errors and the work budget every area request shares, and the answer cache. */
const CONTROLS = [
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
    key: 'queryTimeout',
    flag: '--query-timeout <ms>',
    env: 'MOCKYARD_QUERY_TIMEOUT',
    default: 5000,
    description:
      "Work budget of one DKAN query, AGCO search or archive search, in milliseconds; longer ones get the area's error (DKAN 400, busy 503).",
    ...wholeNumber('query timeout', 100, 600_000),
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
];

/** Each area's own switches, as its real service is set up. */
const AREAS = [
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
    key: 'dkanNoCache',
    flag: '--dkan-no-cache',
    env: 'MOCKYARD_DKAN_NO_CACHE',
    default: false,
    boolean: true,
    description:
      'DKAN answers stay out of the answer cache (--answer-cache-mb), so every DKAN query runs, as when measuring the query engine.',
    ...flag('dkan no cache'),
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
];

/** Serving the real services' host names, over HTTPS with a local certificate authority. */
const REAL_HOSTS = [
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
];

/** Data and answers a user brings: scenarios, WireMock stubs and recordings. */
const SCENARIOS_AND_STUBS = [
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
];

export const ANSWER_OPTIONS = [...CONTROLS, ...AREAS, ...REAL_HOSTS, ...SCENARIOS_AND_STUBS];
