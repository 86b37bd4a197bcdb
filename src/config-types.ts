// The shape of a resolved configuration: what every part of mockyard reads, and what the option tables
// (config-options.ts, config-answer-options.ts) and their value rules (config-rules.ts) produce.
import type { AreaName } from '../fixtures/types.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface Config {
  host: string;
  port: number;
  logLevel: LogLevel;
  /** null: pretty on a terminal, JSON lines otherwise. */
  logFormat: LogFormat | null;
  quiet: boolean;
  dataDir: string;
  seed: number;
  scale: number;
  corsOrigins: readonly string[];
  areaPorts: number | null;
  watch: boolean;
  admin: boolean;
  adminToken: string | null;
  allowedHosts: readonly string[];
  headersTimeout: number;
  bodyTimeout: number;
  journalSize: number;
  journalBodyBytes: number;
  latency: readonly [number, number] | null;
  errorRate: number;
  faultSeed: number;
  archiveRedirect: boolean;
  marketcheckApiKeys: readonly string[];
  marketcheckRateLimit: number;
  agcoTokens: readonly string[];
  dkanCsvDir: string | null;
  dkanMaxLimit: number;
  dkanNoCache: boolean;
  answerCacheMb: number;
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

export type ConfigInput = { [K in keyof Config]?: Config[K] | string };
