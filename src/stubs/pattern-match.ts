// How a request's value or body is matched against a stub's patterns (patterns.ts reads them): on the
// request path whether it matches (valueMatches, bodyMatches, a body a slice at a time), and for near-miss
// reports how far it is. A distance is 0 for a match and up to 1 for a miss; near-miss reports sort by it, as
// WireMock's MatchResult.getDistance does (EqualToPattern: normalised Levenshtein; regex and contains: 0 or 1).
import { distance as levenshtein } from 'fastest-levenshtein';
import { JSONPath } from 'jsonpath-plus';
import { jsonEqual } from './json-equal.js';
import { EVENT_LOOP_WORK, jsonPathWork, withinJsonPathWork } from './json-path-work.js';
import type { ValuePattern } from './patterns.js';

/**
 * Levenshtein distance over the longer length: WireMock's EqualToPattern distance. fastest-levenshtein's
 * bit-parallel distance (Myers) costs a word operation per 32 characters of one string for each character of
 * the other: a near-miss report over 1,000 mappings of 250-character values took 2.3 s with a table per pair.
 */
function normalisedLevenshtein(a: string, b: string): number {
  if (a === b) return 0;
  const longest = Math.max(a.length, b.length);
  // Long values (bodies) are compared as equal or not: the distance is for names and short values.
  if (longest > 256) return 1;
  return levenshtein(a, b) / longest;
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

/** What matching a body needs: a pause between its patterns, and a thread for regular expressions and JSONPath. */
export interface Slicing {
  /** A promise to wait for when the event loop is due to other work (see timeSlicer in world.ts). */
  tick: () => Promise<void> | undefined;
  /** Whether a text fully matches a regular expression, computed off the event loop (regex-thread.ts). */
  regex: (source: string, text: string) => Promise<boolean>;
  /** Whether a JSON text matches a matchesJsonPath matcher (its mapping's value), computed off the event loop. */
  jsonPath: (source: unknown, text: string) => Promise<boolean>;
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
    case 'matchesJsonPath':
      return value !== undefined && jsonPathMatches(p, json ? json() : parseJson(value));
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

/** A JSONPath that may do more work on this body than the event loop allows: the thread runs it (json-path-work.ts). */
function tooMuchHere(p: Extract<ValuePattern, { kind: 'matchesJsonPath' }>, body: BodyView): boolean {
  const doc = body.json();
  return doc.ok && jsonPathWork(p.expression, doc.value) > EVENT_LOOP_WORK;
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
  // A regular expression or a JSONPath over a large body runs on its own thread (a `..` over a MiB walks every
  // node, keeping its path: hundreds of milliseconds); the rest (contains, JSON equality, a short body's
  // expression or path) are quick enough between ticks.
  if (p.kind === 'matches' && body.text.length > THREAD_REGEX_BYTES)
    return (await slicing.regex(p.regex.source, body.text)) !== p.negate;
  if (p.kind === 'matchesJsonPath' && (body.text.length > THREAD_REGEX_BYTES || tooMuchHere(p, body)))
    return slicing.jsonPath(p.source, body.text);
  await slicing.tick();
  if (p.kind === 'matchesJsonPath' && p.sub !== null) return jsonPathMatchesSliced(p, p.sub, body, slicing);
  return bodyMatches(p, body);
}

/**
 * bodyDistance for near-miss reports, one leaf pattern at a time with `tick` between them. Over
 * THREAD_REGEX_BYTES a leaf is decided where bodyMatchesSliced decides it (a regular expression or JSONPath on
 * its thread), as 0 or 1: every body distance is 0 or 1 at that size but a JSONPath's sub-matcher, which then
 * only tells a match from a miss.
 */
export async function bodyDistanceSliced(p: ValuePattern, body: BodyView, slicing: Slicing): Promise<number> {
  if (p.kind === 'and' || p.kind === 'or') {
    let d = p.kind === 'and' ? 0 : 1;
    for (const part of p.parts) {
      const x = await bodyDistanceSliced(part, body, slicing);
      d = p.kind === 'and' ? Math.max(d, x) : Math.min(d, x);
    }
    return d;
  }
  if (body.text.length > THREAD_REGEX_BYTES || (p.kind === 'matchesJsonPath' && tooMuchHere(p, body)))
    return (await bodyMatchesSliced(p, body, slicing)) ? 0 : 1;
  await slicing.tick();
  return bodyDistance(p, body);
}

function jsonDistance(p: Extract<ValuePattern, { kind: 'equalToJson' }>, actual: ParsedJson): number {
  if (!actual.ok) return 1;
  return jsonEqual(p.expected, actual.value, p.ignoreArrayOrder, p.ignoreExtraElements) ? 0 : 1;
}

type JsonPathPattern = Extract<ValuePattern, { kind: 'matchesJsonPath' }>;

/** What a JSONPath finds in a document, as a list; null when it finds nothing or cannot run. */
function jsonPathFound(expression: string, doc: ParsedJson): unknown[] | null {
  if (!doc.ok || !withinJsonPathWork(expression, doc.value)) return null;
  try {
    const found: unknown = JSONPath({ path: expression, json: doc.value as object, wrap: true, eval: 'safe' });
    return Array.isArray(found) && found.length > 0 ? found : null;
  } catch {
    return null;
  }
}

/**
 * A value found, as a sub-matcher reads it: a string as it is, anything else as JSON; null for a value nested
 * too deep for JSON.stringify (thousands of levels: RangeError), which then matches nothing.
 */
function asText(v: unknown): string | null {
  if (typeof v === 'string') return v;
  try {
    return JSON.stringify(v);
  } catch {
    return null;
  }
}

/** Whether a JSONPath without a sub-matcher matches: it found a value that is not null. */
const anyFound = (found: readonly unknown[]) => found.some((v) => v !== null && v !== undefined);

/**
 * The texts a sub-matcher is tried on (WireMock's rule): the one value found or, several found, the list as
 * JSON and then each value; a value too deep to be text is skipped.
 */
function* subjects(found: readonly unknown[]): Generator<string> {
  for (const v of found.length === 1 ? found : [found, ...found]) {
    const text = asText(v);
    if (text !== null) yield text;
  }
}

function jsonPathDistance(p: JsonPathPattern, doc: ParsedJson): number {
  const found = jsonPathFound(p.expression, doc);
  if (found === null) return 1;
  if (p.sub === null) return anyFound(found) ? 0 : 1;
  // The closest of the texts the sub-matcher is tried on.
  let best = 1;
  for (const text of subjects(found)) {
    const d = distance(p.sub, text);
    if (d === 0) return 0;
    if (d < best) best = d;
  }
  return best;
}

/**
 * Whether the values found match (jsonPathDistance === 0), each compared by valueMatches: measuring each one's
 * distance instead ran a Levenshtein table per value, a second for 5,000 values of 200 characters.
 */
function jsonPathMatches(p: JsonPathPattern, doc: ParsedJson): boolean {
  const found = jsonPathFound(p.expression, doc);
  if (found === null) return false;
  if (p.sub === null) return anyFound(found);
  for (const text of subjects(found)) if (valueMatches(p.sub, text)) return true;
  return false;
}

/**
 * The same on a body, with the event loop let in between the values found: a `..` over a deep
 * document finds thousands of nested values, and each is made into text whole (two seconds of one run over a
 * MiB nested 200 deep). The list's JSON is put together from its values' texts, last, and not at all when
 * its length already rules out an equalTo.
 */
async function jsonPathMatchesSliced(p: JsonPathPattern, sub: ValuePattern, body: BodyView, slicing: Slicing) {
  const found = jsonPathFound(p.expression, body.json());
  if (found === null) return false;
  if (found.length === 1) {
    const text = asText(found[0]);
    return text !== null && valueMatches(sub, text);
  }
  const items: string[] = [];
  let length = found.length + 1;
  // A value too deep to be text matches nothing, and the list holding it cannot be made into text either.
  let whole = true;
  for (const v of found) {
    await slicing.tick();
    const text = asText(v);
    if (text === null) {
      whole = false;
      continue;
    }
    if (valueMatches(sub, text)) return true;
    const json = typeof v === 'string' ? JSON.stringify(v) : text;
    items.push(json);
    length += json.length;
  }
  if (!whole || (sub.kind === 'equalTo' && !sub.caseInsensitive && length !== sub.expected.length)) return false;
  await slicing.tick();
  return valueMatches(sub, `[${items.join(',')}]`);
}
