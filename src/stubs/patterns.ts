// WireMock's string value patterns (StringValuePattern and its subclasses) as data: parsed once, matched with a distance.
//
// A distance is 0 for a match and up to 1 for a miss; near-miss reports sort by it, as WireMock's
// MatchResult.getDistance does (EqualToPattern: normalised Levenshtein; regex and contains: 0 or 1).
import { createRequire } from 'node:module';
import type { RE2 } from 're2-wasm';
import { JSONPath } from 'jsonpath-plus';
import { MappingError, isObject } from './errors.js';
import { fullMatch } from './regex-thread.js';

export type ValuePattern =
  | { kind: 'equalTo'; expected: string; caseInsensitive: boolean }
  | { kind: 'contains'; expected: string; negate: boolean }
  | { kind: 'matches'; regex: SafeRegex; negate: boolean }
  | { kind: 'absent' }
  | { kind: 'binaryEqualTo'; expected: Buffer }
  | { kind: 'equalToJson'; expected: unknown; ignoreArrayOrder: boolean; ignoreExtraElements: boolean }
  | { kind: 'matchesJsonPath'; expression: string; sub: ValuePattern | null }
  | { kind: 'and' | 'or'; parts: ValuePattern[] };

// re2-wasm compiles its WebAssembly when it is loaded: only a server whose stubs hold a pattern pays for it
// (Node's module cache keeps it once loaded).
const requireHere = createRequire(import.meta.url);
const loadRe2 = (): typeof RE2 => (requireHere('re2-wasm') as { RE2: typeof RE2 }).RE2;

/** Keys whose value is a regular expression, at any depth of a mapping or a request pattern. */
const REGEX_KEYS = new Set(['matches', 'doesNotMatch', 'urlPattern', 'urlPathPattern']);
/** One of them as JSON writes a key (the names hold no character that is special in a pattern). */
const REGEX_KEY = new RegExp(`"(?:${[...REGEX_KEYS].join('|')})"\\s*:`);

/**
 * Whether a JSON text may hold a regular expression: one of those keys, as JSON writes it. A key spelled
 * with escapes is missed (RE2 is then loaded where the pattern is compiled, as before this check); a false
 * hit (such a key in a response body) only loads RE2 sooner.
 */
export const mayHoldRegex = (text: string): boolean => REGEX_KEY.test(text);

/** Whether a JSON value holds a regular expression (a walk with its own stack: bodies nest deeply). */
function holdsRegex(json: unknown): boolean {
  const stack = [json];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null) continue;
    if (Array.isArray(v)) for (const inner of v) stack.push(inner);
    else
      for (const key in v) {
        if (REGEX_KEYS.has(key)) return true;
        stack.push((v as Record<string, unknown>)[key]);
      }
  }
  return false;
}

/** Whether RE2 has been loaded in this process (is in Node's module cache). */
export const re2Loaded = (): boolean => requireHere.cache[requireHere.resolve('re2-wasm')] !== undefined;

/**
 * Loads RE2 in turns of the event loop that other requests may come between: loading re2-wasm (about
 * 35 ms here), then its first match (about 20 ms, the WebAssembly code compiled on first use). Done
 * inside the request that needed it, they made one pause of 80 ms (114-152 ms under CI's load) for every
 * client. A failure is left to the pattern that needs RE2, which reports it as the mapping's error.
 */
export async function loadRe2Soon(): Promise<void> {
  if (re2Loaded()) return;
  await new Promise(setImmediate);
  try {
    const Re2 = loadRe2();
    await new Promise(setImmediate);
    new Re2('a', 'u').test('a');
  } catch {
    return;
  }
  await new Promise(setImmediate);
}

/** Loads RE2 (loadRe2Soon) before mappings or request patterns that hold the process's first regular expression. */
export async function readyForPatterns(json: unknown): Promise<void> {
  if (!re2Loaded() && holdsRegex(json)) await loadRe2Soon();
}

/** Longest regular expression or JSON path a mapping may hold. */
export const MAX_EXPRESSION_LENGTH = 4096;

/**
 * A user's regular expression, run by RE2 (linear time, no backtracking), so no pattern can stall the
 * event loop. Java's DOTALL full match, as WireMock's RegexPattern uses `Pattern.compile(re, DOTALL)`
 * and `matcher.matches()`. Look-arounds and back-references, which RE2 lacks, are refused with a 422.
 */
export class SafeRegex {
  readonly #re: RE2;
  constructor(
    readonly source: string,
    field: string,
  ) {
    if (source.length > MAX_EXPRESSION_LENGTH)
      throw new MappingError(field, `the regular expression is longer than ${MAX_EXPRESSION_LENGTH} characters`);
    try {
      this.#re = new (loadRe2())(...fullMatch(source));
    } catch (err) {
      throw new MappingError(
        field,
        `"${source}" is not a regular expression mockyard can run (${(err as Error).message}); ` +
          'mockyard runs patterns with RE2, which has no look-arounds or back-references',
      );
    }
  }
  test(value: string): boolean {
    return this.#re.test(value);
  }
}

const KEYS = new Set([
  'equalTo',
  'caseInsensitive',
  'contains',
  'doesNotContain',
  'matches',
  'doesNotMatch',
  'absent',
  'binaryEqualTo',
  'equalToJson',
  'ignoreArrayOrder',
  'ignoreExtraElements',
  'matchesJsonPath',
  'and',
  'or',
]);

const str = (v: unknown, field: string): string => {
  if (typeof v !== 'string') throw new MappingError(field, 'must be a string');
  return v;
};

/** One WireMock value pattern object, e.g. `{ "equalTo": "x", "caseInsensitive": true }`. */
export function parsePattern(json: unknown, field: string): ValuePattern {
  if (!isObject(json)) throw new MappingError(field, 'must be a matcher object such as {"equalTo": "..."}');
  for (const key of Object.keys(json)) {
    if (!KEYS.has(key))
      throw new MappingError(`${field}/${key}`, 'is not a matcher mockyard supports (see docs/stubs.md)');
  }
  if ('equalTo' in json)
    return {
      kind: 'equalTo',
      expected: str(json.equalTo, `${field}/equalTo`),
      caseInsensitive: json.caseInsensitive === true,
    };
  if ('contains' in json) return { kind: 'contains', expected: str(json.contains, `${field}/contains`), negate: false };
  if ('doesNotContain' in json)
    return { kind: 'contains', expected: str(json.doesNotContain, `${field}/doesNotContain`), negate: true };
  if ('matches' in json)
    return {
      kind: 'matches',
      regex: new SafeRegex(str(json.matches, `${field}/matches`), `${field}/matches`),
      negate: false,
    };
  if ('doesNotMatch' in json) {
    const f = `${field}/doesNotMatch`;
    return { kind: 'matches', regex: new SafeRegex(str(json.doesNotMatch, f), f), negate: true };
  }
  if ('absent' in json) return { kind: 'absent' };
  if ('binaryEqualTo' in json)
    return {
      kind: 'binaryEqualTo',
      expected: Buffer.from(str(json.binaryEqualTo, `${field}/binaryEqualTo`), 'base64'),
    };
  if ('equalToJson' in json) return equalToJson(json, field);
  if ('matchesJsonPath' in json) return jsonPathPattern(json.matchesJsonPath, `${field}/matchesJsonPath`);
  for (const kind of ['and', 'or'] as const) {
    if (kind in json) {
      const list = json[kind];
      if (!Array.isArray(list) || list.length === 0)
        throw new MappingError(`${field}/${kind}`, 'must be a non-empty list of matchers');
      return { kind, parts: list.map((p, i) => parsePattern(p, `${field}/${kind}/${i}`)) };
    }
  }
  throw new MappingError(field, 'names no matcher (equalTo, contains, matches, absent, equalToJson, ...)');
}

function equalToJson(json: Record<string, unknown>, field: string): ValuePattern {
  let expected = json.equalToJson;
  if (typeof expected === 'string') {
    try {
      expected = JSON.parse(expected);
    } catch {
      throw new MappingError(`${field}/equalToJson`, 'is a string that is not valid JSON');
    }
  }
  return {
    kind: 'equalToJson',
    expected,
    ignoreArrayOrder: json.ignoreArrayOrder === true,
    ignoreExtraElements: json.ignoreExtraElements === true,
  };
}

function jsonPathPattern(value: unknown, field: string): ValuePattern {
  if (typeof value === 'string') return { kind: 'matchesJsonPath', expression: checkPath(value, field), sub: null };
  if (!isObject(value) || typeof value.expression !== 'string')
    throw new MappingError(field, 'must be a JSON path string or {"expression": "...", <matcher>}');
  const { expression, ...rest } = value;
  const sub = Object.keys(rest).length > 0 ? parsePattern(rest, field) : null;
  return { kind: 'matchesJsonPath', expression: checkPath(expression, `${field}/expression`), sub };
}

function checkPath(expression: string, field: string): string {
  if (!expression.startsWith('$') || expression.length > MAX_EXPRESSION_LENGTH)
    throw new MappingError(field, `must be a JSON path starting with $ (at most ${MAX_EXPRESSION_LENGTH} characters)`);
  return expression;
}

/** Levenshtein distance over the longer length: WireMock's EqualToPattern distance. */
function normalisedLevenshtein(a: string, b: string): number {
  if (a === b) return 0;
  const longest = Math.max(a.length, b.length);
  // Long values (bodies) are compared as equal or not: the quadratic distance is for names and short values.
  if (longest > 256) return 1;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
    }
    prev = cur;
  }
  return prev[b.length]! / longest;
}

/** JSON.parse's answer, or that the text is not JSON. */
export type ParsedJson = { ok: true; value: unknown } | { ok: false };

export function parseJson(text: string): ParsedJson {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** What matching a large body needs: a pause between its patterns, and a thread for regular expressions. */
export interface Slicing {
  /** A promise to wait for when the event loop is due to other work (see timeSlicer in world.ts). */
  tick: () => Promise<void> | undefined;
  /** Whether a text fully matches a regular expression, computed off the event loop (regex-thread.ts). */
  regex: (source: string, text: string) => Promise<boolean>;
}

/** A request body as the patterns read it: its bytes, its UTF-8 text, and its JSON parsed once by its owner. */
export interface BodyView {
  bytes: Buffer;
  text: string;
  json(): ParsedJson;
}

/**
 * Distance of a value (undefined when the header, parameter or cookie is missing) from a pattern. `json`
 * gives the value's JSON when its owner keeps it parsed (a body meets many JSON patterns).
 */
export function distance(p: ValuePattern, value: string | undefined, json?: () => ParsedJson): number {
  switch (p.kind) {
    case 'absent':
      return value === undefined ? 0 : 1;
    case 'and':
      return Math.max(...p.parts.map((part) => distance(part, value, json)));
    case 'or':
      return Math.min(...p.parts.map((part) => distance(part, value, json)));
    default:
      if (value === undefined) return 1;
  }
  switch (p.kind) {
    case 'equalTo':
      return p.caseInsensitive
        ? normalisedLevenshtein(p.expected.toLowerCase(), value.toLowerCase())
        : normalisedLevenshtein(p.expected, value);
    case 'contains':
      return value.includes(p.expected) !== p.negate ? 0 : 1;
    case 'matches':
      return p.regex.test(value) !== p.negate ? 0 : 1;
    case 'binaryEqualTo':
      return Buffer.from(value, 'latin1').equals(p.expected) ? 0 : 1;
    case 'equalToJson':
      return jsonDistance(p, json ? json() : parseJson(value));
    case 'matchesJsonPath':
      return jsonPathDistance(p, json ? json() : parseJson(value));
  }
}

/**
 * Whether `value` matches: `distance(p, value) === 0`, without measuring how far it is. The hot path: an
 * equalTo is compared, not run through Levenshtein (a quadratic table of its length and the value's), and an
 * and / or stops at its first deciding part.
 */
export function valueMatches(p: ValuePattern, value: string | undefined, json?: () => ParsedJson): boolean {
  switch (p.kind) {
    case 'and':
      return p.parts.every((part) => valueMatches(part, value, json));
    case 'or':
      return p.parts.some((part) => valueMatches(part, value, json));
    case 'equalTo':
      if (value === undefined) return false;
      return p.caseInsensitive ? p.expected.toLowerCase() === value.toLowerCase() : p.expected === value;
    default:
      return distance(p, value, json) === 0;
  }
}

/** Whether a body given as bytes matches (bodyDistance === 0). */
export function bodyMatches(p: ValuePattern, body: BodyView): boolean {
  if (p.kind === 'binaryEqualTo') return body.bytes.equals(p.expected);
  return valueMatches(p, body.text, body.json);
}

/** Bodies above this have their regular expressions matched on the regex thread (about a millisecond over 64 KiB). */
export const THREAD_REGEX_BYTES = 64 * 1024;

/** Distance of a body given as bytes: binaryEqualTo compares bytes, every other pattern the UTF-8 text. */
export function bodyDistance(p: ValuePattern, body: BodyView): number {
  if (p.kind === 'binaryEqualTo') return body.bytes.equals(p.expected) ? 0 : 1;
  return distance(p, body.text, body.json);
}

/**
 * Whether a body matches, one leaf pattern at a time with `tick` between them: one regular expression over a
 * MiB takes tens of milliseconds even in RE2's linear time, a JSONPath with `..` over a few dozen KiB a few,
 * and an `or` of many (or many stubs) would otherwise hold the event loop for all of them.
 */
export async function bodyMatchesSliced(p: ValuePattern, body: BodyView, slicing: Slicing): Promise<boolean> {
  if (p.kind === 'and' || p.kind === 'or') {
    for (const part of p.parts) {
      const hit = await bodyMatchesSliced(part, body, slicing);
      if (hit !== (p.kind === 'and')) return hit;
    }
    return p.kind === 'and';
  }
  // A regular expression over a large body runs on its own thread; the rest (contains, JSON, a short body's
  // expression) are quick enough between ticks.
  if (p.kind === 'matches' && body.text.length > THREAD_REGEX_BYTES)
    return (await slicing.regex(p.regex.source, body.text)) !== p.negate;
  await slicing.tick();
  return bodyMatches(p, body);
}

function jsonDistance(p: Extract<ValuePattern, { kind: 'equalToJson' }>, actual: ParsedJson): number {
  if (!actual.ok) return 1;
  return jsonEqual(p.expected, actual.value, p.ignoreArrayOrder, p.ignoreExtraElements) ? 0 : 1;
}

/** JSON equality as WireMock's EqualToJsonPattern (JsonUnit): numbers by value, options for arrays and extra fields. */
export function jsonEqual(expected: unknown, actual: unknown, anyOrder: boolean, extra: boolean): boolean {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return false;
    if (!extra && actual.length !== expected.length) return false;
    if (!anyOrder) {
      // ignoreExtraElements also ignores extra array items (JsonUnit's IGNORING_EXTRA_ARRAY_ITEMS).
      return expected.every((e, i) => i < actual.length && jsonEqual(e, actual[i], anyOrder, extra));
    }
    // Each expected element takes a distinct actual one.
    const used = new Array<boolean>(actual.length).fill(false);
    return expected.every((e) => {
      const i = actual.findIndex((a, k) => !used[k] && jsonEqual(e, a, anyOrder, extra));
      if (i < 0) return false;
      used[i] = true;
      return true;
    });
  }
  if (isObject(expected)) {
    if (!isObject(actual)) return false;
    const keys = Object.keys(expected);
    if (!extra && Object.keys(actual).length !== keys.length) return false;
    return keys.every((k) => Object.hasOwn(actual, k) && jsonEqual(expected[k], actual[k], anyOrder, extra));
  }
  return expected === actual;
}

function jsonPathDistance(p: Extract<ValuePattern, { kind: 'matchesJsonPath' }>, doc: ParsedJson): number {
  if (!doc.ok) return 1;
  let found: unknown[];
  try {
    found = JSONPath({ path: p.expression, json: doc.value as object, wrap: true, eval: 'safe' }) as unknown[];
  } catch {
    return 1;
  }
  if (!Array.isArray(found) || found.length === 0) return 1;
  if (p.sub === null) return found.some((v) => v !== null && v !== undefined) ? 0 : 1;
  const sub = p.sub;
  const asText = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
  // A sub-matcher on an array result (WireMock: the list as JSON) or on each value it found.
  const candidates = found.length === 1 ? [found[0]] : [found, ...found];
  return Math.min(...candidates.map((v) => distance(sub, asText(v))));
}

/** The pattern back as WireMock JSON, for a near-miss report of which part failed. */
export function describePattern(p: ValuePattern): string {
  switch (p.kind) {
    case 'equalTo':
      return `equalTo ${JSON.stringify(p.expected)}${p.caseInsensitive ? ' (case-insensitive)' : ''}`;
    case 'contains':
      return `${p.negate ? 'doesNotContain' : 'contains'} ${JSON.stringify(p.expected)}`;
    case 'matches':
      return `${p.negate ? 'doesNotMatch' : 'matches'} ${JSON.stringify(p.regex.source)}`;
    case 'absent':
      return 'absent';
    case 'binaryEqualTo':
      return 'binaryEqualTo';
    case 'equalToJson':
      return `equalToJson ${JSON.stringify(p.expected)}`;
    case 'matchesJsonPath':
      return `matchesJsonPath ${p.expression}`;
    default:
      return p.parts.map(describePattern).join(` ${p.kind} `);
  }
}
