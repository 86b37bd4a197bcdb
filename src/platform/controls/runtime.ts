// Runtime state of a running mockyard (journal, fault draws, shutdown) and the registry behind POST /__mockyard/reset.
import type { Config } from '../../config.js';
import { Journal } from './journal.js';
import { AnswerCache } from '../http/answer-cache.js';
import { mulberry32, type Random } from '../../../fixtures/lib/prng.js';

type ResetListener = () => void;

/**
 * One per running mockyard, shared by the shared port and every --area-ports app, so the journal
 * sees all of them. app.ts decorates every Fastify instance with it as `app.runtime` before any
 * plugin is registered, so an area plugin can hook its own state into reset:
 *
 *   app.runtime.onReset(() => limiter.clear());
 */
export class Runtime {
  readonly journal: Journal;
  /** The answer cache of every area (answer-cache.ts), shared like the journal; emptied on reset. */
  readonly answers: AnswerCache;
  #errorRandom!: Random;
  #latencyRandom!: Random;
  #listeners = new Set<ResetListener>();
  #shutdown = new AbortController();

  constructor(readonly config: Pick<Config, 'journalSize' | 'faultSeed' | 'adminToken' | 'answerCacheMb'>) {
    this.journal = new Journal(config.journalSize, config.adminToken);
    this.answers = new AnswerCache((config.answerCacheMb ?? 0) * 1024 * 1024);
    this.#seed();
  }

  #seed(): void {
    // Separate streams, so turning latency on does not change which requests fail.
    this.#errorRandom = mulberry32(this.config.faultSeed);
    this.#latencyRandom = mulberry32(this.config.faultSeed ^ 0x9e3779b9);
  }

  /** Draws for the error rate. */
  readonly errorRandom: Random = () => this.#errorRandom();
  /** Draws for latency and `Prefer: delay` ranges. */
  readonly latencyRandom: Random = () => this.#latencyRandom();

  /** Aborted when shutdown starts, so waits on behalf of a request end at once. */
  get shutdownSignal(): AbortSignal {
    return this.#shutdown.signal;
  }

  shutdown(): void {
    this.#shutdown.abort();
  }

  /** Registers state to forget on reset; returns a function that unregisters it. */
  onReset(listener: ResetListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Clears the journal, restarts the seeded draws and calls every registered listener. */
  reset(): { journalCleared: number } {
    const journalCleared = this.journal.clear();
    this.answers.clear();
    this.#seed();
    for (const listener of this.#listeners) listener();
    return { journalCleared };
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** mockyard's runtime state; see Runtime. */
    runtime: Runtime;
    /** The resolved configuration this app serves with. */
    config: Config;
  }
}
