// The regular-expression thread's script (started by regex-thread.ts): RE2 full matches over the texts it
// was sent, each text sent once for all the patterns its body meets.
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import { fullMatch } from './regex-thread.js';

/** What the thread is asked: a pattern, and the text (sent with it) or the key of a text sent before. */
export interface MatchRequest {
  id: number;
  source: string;
  key: number;
  text?: string;
}

export interface MatchReply {
  id: number;
  hit: boolean;
  /** The text of `key` is no longer held: the caller sends it again. */
  lost?: true;
}

interface Re2 {
  test(text: string): boolean;
}
type Re2Constructor = new (source: string, flags: string) => Re2;

/** Compiled patterns kept at most; past it, they are compiled again. */
const MAX_COMPILED = 512;

/** The thread's state: the texts it holds (the newest `keep`) and the patterns it compiled. */
export class RegexMatcher {
  readonly #compiled = new Map<string, Re2>();
  readonly #texts = new Map<number, string>();

  constructor(
    private readonly re2: Re2Constructor,
    private readonly keep: number,
  ) {}

  match({ id, source, key, text }: MatchRequest): MatchReply {
    if (text !== undefined) {
      this.#texts.set(key, text);
      if (this.#texts.size > this.keep) this.#texts.delete(this.#texts.keys().next().value!);
    }
    const held = this.#texts.get(key);
    if (held === undefined) return { id, hit: false, lost: true };
    let re = this.#compiled.get(source);
    if (!re) {
      if (this.#compiled.size >= MAX_COMPILED) this.#compiled.clear();
      re = new this.re2(...fullMatch(source));
      this.#compiled.set(source, re);
    }
    return { id, hit: re.test(held) };
  }
}

if (parentPort) {
  const port = parentPort;
  const { RE2 } = createRequire(import.meta.url)('re2-wasm') as { RE2: Re2Constructor };
  const matcher = new RegexMatcher(RE2, (workerData as { keep: number }).keep);
  port.on('message', (request: MatchRequest) => port.postMessage(matcher.match(request)));
}
