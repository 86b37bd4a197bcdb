// A WireMock 3 stub mapping (StubMapping: request pattern, response definition, priority, scenario) parsed into plain data.
import { randomUUID } from 'node:crypto';
import { MappingError, isObject } from './errors.js';
import { SafeRegex, parsePattern, regexWeight, regexesIn, type ValuePattern } from './patterns.js';
import { plainAnswer } from './answer.js';
import { FAULTS, type Fault, type RequestRule, type ResponseRule, type Stub, type UrlRule } from './stub.js';

/** WireMock's default priority. */
export const DEFAULT_PRIORITY = 5;
export const MAPPING_LIMITS = {
  /** Mappings held at once (all sources together). */
  mappings: 10_000,
  /**
   * Regular expressions the mappings hold, all together, each weighed by its length (regexWeight): re2-wasm
   * keeps them in a heap of a fixed 16 MiB (re2-heap.ts), about 10,000 short ones, and matching needs room
   * there too.
   */
  regexes: 4_000,
  /** Regular expressions in one mapping: each costs about 75 us to compile, while the mapping is read. */
  mappingRegexes: 1_000,
  /** Their characters in one mapping: 1 MB of alternations took 650 ms to compile. */
  mappingRegexChars: 65_536,
  /** About how long they may take to compile, in ms (compileCost): the event loop waits for it. */
  mappingRegexCompileMs: 60,
  /** Bytes of one mapping's JSON. */
  mappingBytes: 1024 * 1024,
  /** Longest fixedDelayMilliseconds. */
  delayMs: 60_000,
} as const;

const TOP = new Set([
  'id',
  'uuid',
  'name',
  'request',
  'response',
  'priority',
  'persistent',
  'metadata',
  'scenarioName',
  'requiredScenarioState',
  'newScenarioState',
  'insertionIndex',
]);
const REQUEST = new Set([
  'method',
  'url',
  'urlPath',
  'urlPattern',
  'urlPathPattern',
  'host',
  'queryParameters',
  'headers',
  'cookies',
  'basicAuthCredentials',
  'bodyPatterns',
]);
const RESPONSE = new Set([
  'status',
  'statusMessage',
  'headers',
  'body',
  'jsonBody',
  'base64Body',
  'bodyFileName',
  'fixedDelayMilliseconds',
  'fault',
  'proxyBaseUrl',
  'additionalProxyRequestHeaders',
]);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function closed(json: Record<string, unknown>, known: Set<string>, at: string): void {
  for (const key of Object.keys(json)) {
    if (!known.has(key)) throw new MappingError(`${at}/${key}`, 'is not a field mockyard supports (see docs/stubs.md)');
  }
}

const optionalString = (v: unknown, field: string): string | null => {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string' || v.length === 0) throw new MappingError(field, 'must be a non-empty string');
  return v;
};

function patternMap(v: unknown, at: string, lower = false): [string, ValuePattern][] {
  if (v === undefined) return [];
  if (!isObject(v)) throw new MappingError(at, 'must be an object of name to matcher');
  return Object.entries(v).map(([name, p]) => [lower ? name.toLowerCase() : name, parsePattern(p, `${at}/${name}`)]);
}

function urlRule(json: Record<string, unknown>): UrlRule {
  const given = (['url', 'urlPath', 'urlPattern', 'urlPathPattern'] as const).filter((k) => json[k] !== undefined);
  if (given.length > 1)
    throw new MappingError(`/request/${given[1]}`, `only one of url, urlPath, urlPattern, urlPathPattern may be given`);
  const kind = given[0];
  if (kind === undefined) return { kind: 'any' };
  const value = json[kind];
  if (typeof value !== 'string') throw new MappingError(`/request/${kind}`, 'must be a string');
  if (kind === 'url' || kind === 'urlPath') {
    if (!value.startsWith('/')) throw new MappingError(`/request/${kind}`, 'must start with /');
    return { kind, value };
  }
  return { kind, regex: new SafeRegex(value, `/request/${kind}`) };
}

function requestRule(json: unknown): RequestRule {
  if (!isObject(json)) throw new MappingError('/request', 'must be an object');
  closed(json, REQUEST, '/request');
  const method = json.method === undefined ? 'ANY' : json.method;
  if (typeof method !== 'string' || !/^[A-Za-z]+$/.test(method))
    throw new MappingError('/request/method', 'must be an HTTP method name or ANY');
  const headers = patternMap(json.headers, '/request/headers', true);
  const auth = json.basicAuthCredentials;
  if (auth !== undefined) {
    if (!isObject(auth) || typeof auth.username !== 'string' || typeof auth.password !== 'string')
      throw new MappingError('/request/basicAuthCredentials', 'must be {"username": "...", "password": "..."}');
    const expected = `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`;
    headers.push(['authorization', { kind: 'equalTo', expected, caseInsensitive: false }]);
  }
  const bodyPatterns = json.bodyPatterns ?? [];
  if (!Array.isArray(bodyPatterns)) throw new MappingError('/request/bodyPatterns', 'must be a list of matchers');
  const url = urlRule(json);
  const host = json.host === undefined ? null : parsePattern(json.host, '/request/host');
  const query = patternMap(json.queryParameters, '/request/queryParameters');
  const cookies = patternMap(json.cookies, '/request/cookies');
  const body = bodyPatterns.map((p, i) => parsePattern(p, `/request/bodyPatterns/${i}`));
  const patterns = [host, ...[...query, ...headers, ...cookies].map(([, p]) => p), ...body];
  const regexes =
    (url.kind === 'urlPattern' || url.kind === 'urlPathPattern' ? regexWeight(url.regex.source) : 0) +
    weightOf(patterns);
  return { method: method.toUpperCase(), url, host, query, headers, cookies, body, regexes };
}

/** What the patterns' regular expressions weigh, at any depth (regexWeight). */
function weightOf(patterns: (ValuePattern | null)[]): number {
  let n = 0;
  const stack = [...patterns];
  while (stack.length > 0) {
    const p = stack.pop();
    if (!p) continue;
    if (p.kind === 'matches') n += regexWeight(p.regex.source);
    else if (p.kind === 'and' || p.kind === 'or') stack.push(...p.parts);
    else if (p.kind === 'matchesJsonPath') stack.push(p.sub);
  }
  return n;
}

/**
 * What an HTTP/1.1 header value can carry: Node refuses to send anything else (ERR_INVALID_CHAR, thrown while
 * the answer is written). WireMock's Jetty writes header values in ISO-8859-1 with `?` for what it cannot
 * encode: so does mockyard, made once when the mapping is read, instead of a stub's `€` stopping the answer.
 */
const NOT_HEADER_TEXT = /[^\t\x20-\x7e\x80-\xff]/g;

/**
 * Headers that frame the answer: the server sets them from the body it sends. A mapping's Content-Length
 * would disagree with its body; a Transfer-Encoding beside a Content-Length, or a Trailer on an answer that
 * is not chunked, is a message no client can read (and Node refuses to write the Trailer, ERR_HTTP_TRAILER_INVALID,
 * thrown while the answer is written). WireMock's Jetty answers a chunked Transfer-Encoding or a Trailer in
 * chunks: so does mockyard, without the Trailer, as it sends no trailer fields.
 */
const FRAMING = new Set(['content-length', 'transfer-encoding', 'trailer']);

function headerList(v: unknown, field: string): [string, string][] {
  if (v === undefined) return [];
  if (!isObject(v)) throw new MappingError(field, 'must be an object of header name to value');
  const out: [string, string][] = [];
  for (const [name, value] of Object.entries(v)) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new MappingError(`${field}/${name}`, 'is not a header name');
    const values = Array.isArray(value) ? value : [value];
    for (const item of values) {
      if (typeof item !== 'string' && typeof item !== 'number')
        throw new MappingError(`${field}/${name}`, 'must be a string or a list of strings');
      if (/[\r\n]/.test(String(item))) throw new MappingError(`${field}/${name}`, 'must not contain line breaks');
      out.push([name, String(item).replace(NOT_HEADER_TEXT, '?')]);
    }
  }
  return out;
}

function bodyOf(json: Record<string, unknown>): Buffer | null {
  const given = (['body', 'jsonBody', 'base64Body', 'bodyFileName'] as const).filter((k) => json[k] !== undefined);
  if (given.length > 1)
    throw new MappingError(
      `/response/${given[1]}`,
      'only one of body, jsonBody, base64Body, bodyFileName may be given',
    );
  if (json.body !== undefined) {
    if (typeof json.body !== 'string')
      throw new MappingError('/response/body', 'must be a string (use jsonBody for JSON)');
    return Buffer.from(json.body);
  }
  if (json.jsonBody !== undefined) return Buffer.from(JSON.stringify(json.jsonBody));
  if (json.base64Body !== undefined) {
    if (typeof json.base64Body !== 'string') throw new MappingError('/response/base64Body', 'must be a base64 string');
    return Buffer.from(json.base64Body, 'base64');
  }
  return null;
}

function responseRule(json: unknown): ResponseRule {
  if (json === undefined) json = {};
  if (!isObject(json)) throw new MappingError('/response', 'must be an object');
  closed(json, RESPONSE, '/response');
  const status = json.status ?? 200;
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 100 || status > 599)
    throw new MappingError('/response/status', 'must be a whole number from 100 to 599');
  const delay = json.fixedDelayMilliseconds ?? 0;
  if (typeof delay !== 'number' || !Number.isInteger(delay) || delay < 0 || delay > MAPPING_LIMITS.delayMs)
    throw new MappingError(
      '/response/fixedDelayMilliseconds',
      `must be a whole number from 0 to ${MAPPING_LIMITS.delayMs}`,
    );
  const fault = json.fault ?? null;
  if (fault !== null && !FAULTS.includes(fault as Fault))
    throw new MappingError('/response/fault', `must be one of ${FAULTS.join(', ')}`);
  const proxyBaseUrl = optionalString(json.proxyBaseUrl, '/response/proxyBaseUrl');
  if (proxyBaseUrl !== null && !/^https?:\/\/[^/?#]+/i.test(proxyBaseUrl))
    throw new MappingError('/response/proxyBaseUrl', 'must be an http:// or https:// URL');
  const headers = headerList(json.headers, '/response/headers');
  return {
    status,
    headers: headers.filter(([name]) => !FRAMING.has(name.toLowerCase())),
    chunked: headers.some(([name, value]) => {
      const lower = name.toLowerCase();
      return lower === 'trailer' || (lower === 'transfer-encoding' && /chunked/i.test(value));
    }),
    body: bodyOf(json),
    bodyFileName: optionalString(json.bodyFileName, '/response/bodyFileName'),
    delayMs: delay,
    fault: fault as Fault | null,
    proxyBaseUrl: proxyBaseUrl?.replace(/\/+$/, '') ?? null,
    proxyHeaders: headerList(json.additionalProxyRequestHeaders, '/response/additionalProxyRequestHeaders'),
  };
}

/**
 * Refuses a mapping or a request pattern that holds more regular expressions than one may
 * (MAPPING_LIMITS), counted before any is compiled (a false count, from a body pattern's JSON, only matters
 * past the limit).
 */
export function withinRegexLimits(json: unknown, field: string): void {
  const held = regexesIn(json, MAPPING_LIMITS.mappingRegexes + 1);
  if (held.count > MAPPING_LIMITS.mappingRegexes)
    throw new MappingError(field, `a pattern may hold at most ${MAPPING_LIMITS.mappingRegexes} regular expressions`);
  if (held.cost > MAPPING_LIMITS.mappingRegexCompileMs)
    throw new MappingError(
      field,
      `a pattern's regular expressions would take about ${Math.round(held.cost)} ms to compile, past ${MAPPING_LIMITS.mappingRegexCompileMs} ms: ` +
        'Unicode classes such as \\pL cost about 20 ms each, and a counted repetition compiles its part that many times',
    );
  if (held.chars > MAPPING_LIMITS.mappingRegexChars)
    throw new MappingError(
      field,
      `a pattern's regular expressions may hold at most ${MAPPING_LIMITS.mappingRegexChars} characters in all`,
    );
}

/** Parses one mapping; throws a MappingError naming the field at fault. `seq` orders equal priorities. */
export function parseMapping(input: unknown, seq: number): Stub {
  if (!isObject(input)) throw new MappingError('', 'a mapping must be a JSON object');
  if (Buffer.byteLength(JSON.stringify(input)) > MAPPING_LIMITS.mappingBytes)
    throw new MappingError('', `a mapping may be at most ${MAPPING_LIMITS.mappingBytes} bytes of JSON`);
  closed(input, TOP, '');
  const given = input.id ?? input.uuid;
  if (given !== undefined && (typeof given !== 'string' || !UUID.test(given)))
    throw new MappingError(input.id !== undefined ? '/id' : '/uuid', 'must be a UUID');
  const id = ((given as string | undefined) ?? randomUUID()).toLowerCase();
  const priority = input.priority ?? DEFAULT_PRIORITY;
  if (typeof priority !== 'number' || !Number.isInteger(priority) || priority < 1)
    throw new MappingError('/priority', 'must be a whole number of 1 or more (1 is the highest)');
  const scenarioName = optionalString(input.scenarioName, '/scenarioName');
  const requiredScenarioState = optionalString(input.requiredScenarioState, '/requiredScenarioState');
  const newScenarioState = optionalString(input.newScenarioState, '/newScenarioState');
  if (scenarioName === null && (requiredScenarioState !== null || newScenarioState !== null))
    throw new MappingError('/scenarioName', 'is needed with requiredScenarioState or newScenarioState');
  const { insertionIndex: _ignored, ...rest } = input;
  withinRegexLimits(input.request, '/request');
  const request = requestRule(input.request ?? {});
  const response = responseRule(input.response);
  return {
    id,
    json: { ...rest, id, uuid: id },
    priority,
    request,
    response,
    scenarioName,
    requiredScenarioState,
    newScenarioState,
    seq,
    plain: plainAnswer({ id, response, scenarioName }),
  };
}
