// The regular-expression thread's script (started by regex-thread.ts): RE2 full matches and matchesJsonPath
// matchers over the texts it was sent, each text sent once for all the patterns its body meets.
import { parentPort, workerData } from 'node:worker_threads';
import { parseJson, valueMatches, type ParsedJson } from './pattern-match.js';
import { parsePattern, type ValuePattern } from './patterns.js';
import { Re2Expression } from './re2-heap.js';
import { fullMatch } from './regex-thread.js';

/**
 * What the thread is asked: a regular expression's source or a matchesJsonPath matcher (its mapping's
 * value), and the text (sent with it) or the key of a text sent before.
 */
export interface MatchRequest {
  id: number;
  source?: string;
  jsonPath?: unknown;
  key: number;
  text?: string;
}

export interface MatchReply {
  id: number;
  hit: boolean;
  /** The text of `key` is no longer held: the caller sends it again. */
  lost?: true;
}

/** Compiled patterns kept at most; past it, they are compiled again. */
const MAX_COMPILED = 512;

/** The thread's state: the texts it holds (the newest `keep`), their JSON once read, and the patterns it compiled. */
export class RegexMatcher {
  readonly #compiled = new Map<string, Re2Expression>();
  readonly #paths = new Map<string, ValuePattern>();
  readonly #texts = new Map<number, string>();
  readonly #json = new Map<number, ParsedJson>();

  constructor(private readonly keep: number) {}

  match({ id, source, jsonPath, key, text }: MatchRequest): MatchReply {
    if (text !== undefined) {
      this.#texts.set(key, text);
      if (this.#texts.size > this.keep) {
        const oldest = this.#texts.keys().next().value!;
        this.#texts.delete(oldest);
        this.#json.delete(oldest);
      }
    }
    const held = this.#texts.get(key);
    if (held === undefined) return { id, hit: false, lost: true };
    if (source === undefined) return { id, hit: this.#jsonPath(jsonPath, key, held) };
    let re = this.#compiled.get(source);
    if (!re) {
      if (this.#compiled.size >= MAX_COMPILED) {
        // Freed now: re2-wasm's heap is not the collector's to see (re2-heap.ts).
        for (const old of this.#compiled.values()) old.free();
        this.#compiled.clear();
      }
      re = new Re2Expression(...fullMatch(source));
      this.#compiled.set(source, re);
    }
    return { id, hit: re.test(held) };
  }

  /** A matchesJsonPath matcher on a held text, its JSON read once for all the matchers its body meets. */
  #jsonPath(matcher: unknown, key: number, text: string): boolean {
    const name = JSON.stringify(matcher);
    let pattern = this.#paths.get(name);
    if (!pattern) {
      if (this.#paths.size >= MAX_COMPILED) this.#paths.clear();
      // Checked when the mapping was read: it parses the same here.
      pattern = parsePattern({ matchesJsonPath: matcher }, '/matchesJsonPath');
      this.#paths.set(name, pattern);
    }
    const json = () => {
      let parsed = this.#json.get(key);
      if (!parsed) {
        parsed = parseJson(text);
        this.#json.set(key, parsed);
      }
      return parsed;
    };
    return valueMatches(pattern, text, json);
  }
}

if (parentPort) {
  const port = parentPort;
  const matcher = new RegexMatcher((workerData as { keep: number }).keep);
  port.on('message', (request: MatchRequest) => {
    let reply: MatchReply;
    try {
      reply = matcher.match(request);
    } catch {
      // One body that cannot be matched (JSON nested too deep for the stack) is no match, and the thread
      // stays up for every other request's patterns.
      reply = { id: request.id, hit: false };
    }
    port.postMessage(reply);
  });
}
