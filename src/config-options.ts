// The option table: one entry per option feeds the CLI flags, the environment variables, the option table of
// docs/configuration.md and the typed config (config.ts). Options are grouped by topic; this file holds how
// mockyard runs, config-answer-options.ts how the areas answer.
import path from 'node:path';
import { ANSWER_OPTIONS } from './config-answer-options.js';
import { packageRoot } from './paths.js';
import { ConfigError, flag, folder, option, orOff, stringList, text, wholeNumber } from './config-rules.js';
import { LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel } from './config-types.js';

/** Where mockyard listens, and how long it waits for a request to arrive. */
const LISTENING = [
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
    key: 'areaPorts',
    flag: '--area-ports <first>',
    env: 'MOCKYARD_AREA_PORTS',
    default: null,
    description:
      'Also serve each area at the root path of its own port: archive on <first>, marketcheck +1, appcenter +2, agco +3, dkan +4; 0 gives each area a free port of its own.',
    ...orOff(wholeNumber('area ports', 0, 65531)),
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
];

/** What mockyard writes to its log. */
const LOGGING = [
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
];

/** The generated fixture data: where it lives, its seed and size, and rebuilding it. */
const DATA = [
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
    key: 'watch',
    flag: '--watch',
    env: 'MOCKYARD_WATCH',
    default: false,
    boolean: true,
    description: 'Rebuild the fixture database when fixture files change and swap it in without a restart.',
    ...flag('watch'),
  }),
];

/** The admin routes, the browsers allowed to call mockyard, and the request journal. */
const ADMIN = [
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
];

export const OPTIONS = [...LISTENING, ...LOGGING, ...DATA, ...ADMIN, ...ANSWER_OPTIONS];
