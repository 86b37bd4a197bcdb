// A WireMock 3 stub mapping as plain data (StubMapping: request pattern, response definition, priority,
// scenario): what mapping.ts parses, the matcher (request.ts) tests and the answer step (answer.ts) sends.
import type { FixedAnswer } from '../platform/http/answer-cache.js';
import type { SafeRegex, ValuePattern } from './patterns.js';

export type UrlRule =
  | { kind: 'any' }
  | { kind: 'url' | 'urlPath'; value: string }
  | { kind: 'urlPattern' | 'urlPathPattern'; regex: SafeRegex };

export interface RequestRule {
  /** Upper case; 'ANY' matches every method. */
  method: string;
  url: UrlRule;
  host: ValuePattern | null;
  query: [string, ValuePattern][];
  /** Names in lower case: header names are case-insensitive. */
  headers: [string, ValuePattern][];
  cookies: [string, ValuePattern][];
  body: ValuePattern[];
  /** What its regular expressions weigh (regexWeight; StubStore's limit on them). */
  regexes: number;
}

export const FAULTS = [
  'EMPTY_RESPONSE',
  'MALFORMED_RESPONSE_CHUNK',
  'RANDOM_DATA_THEN_CLOSE',
  'CONNECTION_RESET_BY_PEER',
] as const;
export type Fault = (typeof FAULTS)[number];

export interface ResponseRule {
  status: number;
  /** Without Content-Length, Transfer-Encoding and Trailer: the answer's own framing (see `chunked`). */
  headers: [string, string][];
  /** Sent in chunks, with no Content-Length: the mapping named a chunked Transfer-Encoding or a Trailer. */
  chunked: boolean;
  /** body, jsonBody or base64Body, as bytes; null with bodyFileName or no body. */
  body: Buffer | null;
  bodyFileName: string | null;
  delayMs: number;
  fault: Fault | null;
  proxyBaseUrl: string | null;
  proxyHeaders: [string, string][];
}

export interface Stub {
  id: string;
  /** The mapping as given, with its id: what the admin API lists and what is saved. */
  json: Record<string, unknown>;
  priority: number;
  request: RequestRule;
  response: ResponseRule;
  scenarioName: string | null;
  requiredScenarioState: string | null;
  newScenarioState: string | null;
  /** Insertion order: among equal priorities the newest mapping wins, as in WireMock. */
  seq: number;
  /** The answer as fixed bytes when nothing but the mapping decides it (see plainAnswer), else null. */
  plain: FixedAnswer | null;
}
