// WireMock's string value patterns (StringValuePattern and its subclasses) as data, parsed once; pattern-match.ts matches them.
import { MappingError, isObject } from './errors.js';
import { Re2Expression, loadRe2, re2Loaded } from './re2-heap.js';
import { fullMatch } from './regex-thread.js';

export { re2Loaded };

export type ValuePattern =
  | { kind: 'equalTo'; expected: string; caseInsensitive: boolean }
  | { kind: 'contains'; expected: string; negate: boolean }
  | { kind: 'matches'; regex: SafeRegex; negate: boolean }
  | { kind: 'absent' }
  | { kind: 'binaryEqualTo'; expected: Buffer }
  | { kind: 'equalToJson'; expected: unknown; ignoreArrayOrder: boolean; ignoreExtraElements: boolean }
  | {
      kind: 'matchesJsonPath';
      expression: string;
      sub: ValuePattern | null;
      /** The matcher's value as the mapping gave it: what the regex thread is sent to match it there. */
      source: unknown;
    }
  | { kind: 'and' | 'or'; parts: ValuePattern[] };

// re2-wasm compiles its WebAssembly when it is loaded: only a server whose stubs hold a pattern pays for it
// (Node's module cache keeps it once loaded; re2-heap.ts).

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

/** Whether a JSON value holds a regular expression. */
const holdsRegex = (json: unknown): boolean => regexesIn(json, 1).count > 0;

/**
 * The regular expressions a JSON value may hold (keys that name one, at any depth) and their characters,
 * counting up to `stop` of them: a walk with its own stack, as bodies nest deeply.
 */
export function regexesIn(
  json: unknown,
  stop = Number.POSITIVE_INFINITY,
): { count: number; chars: number; cost: number } {
  const stack = [json];
  let count = 0;
  let chars = 0;
  let cost = 0;
  while (stack.length > 0 && count < stop) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null) continue;
    if (Array.isArray(v)) for (const inner of v) stack.push(inner);
    else
      for (const key in v) {
        const inner = (v as Record<string, unknown>)[key];
        if (REGEX_KEYS.has(key)) {
          count++;
          if (typeof inner === 'string') {
            chars += inner.length;
            cost += compileCost(inner);
          }
        }
        stack.push(inner);
      }
  }
  return { count, chars, cost };
}

/** What a Unicode property class (`\pL`, `\p{Greek}`, `\P...`) costs re2-wasm to compile: 13-25 ms for `\pL` here. */
const PROPERTY_MS = 20;
/** What any other atom costs (a 4,000-character alternation compiles in about 2.6 ms). */
const ATOM_MS = 0.0007;
/** What an atom that matches much of Unicode costs (`.`, `[^a]`, `[[:^alpha:]]`: 55-85 ms for 1,000 of them). */
const WIDE_MS = 0.1;

/**
 * About how many milliseconds re2-wasm takes to compile a pattern: each atom's cost, times the counted
 * repetitions around it (RE2 compiles `x{3}` as `xxx`). Unicode property classes dominate: `\pL{10}` took
 * 130 ms, `(\pL{10}){10}` filled re2-wasm's heap after 500 ms.
 */
export function compileCost(source: string): number {
  // Per open group: its cost so far; `last`: the cost of the atom or group a quantifier would repeat.
  const groups: number[] = [0];
  let last = 0;
  // Case folding, `(?i)`, makes each letter a class (`(?i)k{1000}` compiles in 28 ms).
  const folding = /\(\?[a-zA-Z]*i/.test(source);
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    let atom = ATOM_MS;
    if (c === '\\') {
      const next = source[i + 1];
      if (next === 'p' || next === 'P') {
        atom = PROPERTY_MS;
        i += source[i + 2] === '{' ? Math.max(2, source.indexOf('}', i) - i) : 2;
      } else {
        if (next !== undefined && 'wdsWDS'.includes(next)) atom = WIDE_MS;
        i++;
      }
    } else if (c === '[') {
      // A class, to its own closing bracket (not a POSIX class's). One that reaches past ASCII (negated, a
      // POSIX or Perl class, a \x escape, a character past ASCII) compiles as `.` does; property classes add.
      let j = i + 1;
      let wide = source[j] === '^';
      if (wide) j++;
      if (source[j] === ']') j++;
      let properties = 0;
      for (; j < source.length && source[j] !== ']'; j++) {
        const d = source[j]!;
        if (d === '[' && source[j + 1] === ':') {
          wide = true;
          const close = source.indexOf(':]', j + 2);
          if (close >= 0) j = close + 1;
        } else if (d === '\\') {
          const e = source[j + 1];
          if (e === 'p' || e === 'P') properties++;
          else if (e !== undefined && 'wdsWDSxu'.includes(e)) wide = true;
          j++;
        } else if (d.charCodeAt(0) > 0x7f) wide = true;
      }
      atom = (wide ? WIDE_MS : ATOM_MS) + properties * PROPERTY_MS;
      i = j;
    } else if (c === '(') {
      groups.push(0);
      last = 0;
      continue;
    } else if (c === ')') {
      last = groups.length > 1 ? groups.pop()! : 0;
      groups[groups.length - 1]! += last;
      continue;
    } else if (c === '{') {
      const counted = /^\{(\d+)(?:,(\d*))?\}/.exec(source.slice(i, i + 24));
      if (counted) {
        const times = Math.max(Number(counted[1]), Number(counted[2] || 0));
        groups[groups.length - 1]! += last * (Math.min(times, 100_000) - 1);
        last *= times;
        i += counted[0].length - 1;
        continue;
      }
    } else if (c === '*' || c === '+' || c === '?' || c === '|') continue;
    else if (c === '.') atom = WIDE_MS;
    if (folding) atom = Math.max(atom, WIDE_MS);
    groups[groups.length - 1]! += atom;
    last = atom;
  }
  return groups.reduce((a, b) => a + b, 0);
}

/**
 * What a compiled expression counts against the mappings' limit (MAPPING_LIMITS.regexes): one, and one more
 * per 256 characters, as re2-wasm's heap holds a long alternation's program by its length.
 */
export const regexWeight = (source: string): number => 1 + Math.floor(source.length / 256);

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
  readonly #re: Re2Expression;
  constructor(
    readonly source: string,
    field: string,
  ) {
    if (source.length > MAX_EXPRESSION_LENGTH)
      throw new MappingError(field, `the regular expression is longer than ${MAX_EXPRESSION_LENGTH} characters`);
    try {
      this.#re = new Re2Expression(...fullMatch(source));
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
  if (typeof value === 'string')
    return { kind: 'matchesJsonPath', expression: checkPath(value, field), sub: null, source: value };
  if (!isObject(value) || typeof value.expression !== 'string')
    throw new MappingError(field, 'must be a JSON path string or {"expression": "...", <matcher>}');
  const { expression, ...rest } = value;
  const sub = Object.keys(rest).length > 0 ? parsePattern(rest, field) : null;
  return { kind: 'matchesJsonPath', expression: checkPath(expression, `${field}/expression`), sub, source: value };
}

function checkPath(expression: string, field: string): string {
  if (!expression.startsWith('$') || expression.length > MAX_EXPRESSION_LENGTH)
    throw new MappingError(field, `must be a JSON path starting with $ (at most ${MAX_EXPRESSION_LENGTH} characters)`);
  return expression;
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
