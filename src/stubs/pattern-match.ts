// How a request's value or body is matched against a stub's patterns (patterns.ts reads them): on the
// request path whether it matches (valueMatches, bodyMatches, a large body a slice at a time), and for
// near-miss reports how far it is (distance, WireMock's normalised Levenshtein for equalTo).
import { JSONPath } from 'jsonpath-plus';
import { isObject } from './errors.js';
import type { ValuePattern } from './patterns.js';

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
