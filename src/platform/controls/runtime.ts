// Runtime state of a running mockyard (journal, fault draws, shutdown) and the registry behind POST /__mockyard/reset.
import { setMaxListeners } from 'node:events';
import { setTimeout as wait } from 'node:timers/promises';
import type { Config } from '../../config.js';
import { Journal } from './journal.js';
import { LiveControls } from './live-controls.js';
import { Traffic } from './traffic.js';
import { AnswerCache } from '../http/answer-cache.js';
import { AnswerBudget } from '../http/answer-budget.js';
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
  /** Latency, error rate and fault per area, set at run time; the server-wide flags until then. */
  readonly controls: LiveControls;
  /** Requests and errors per area over the last minutes, fed by the journal. */
  readonly traffic = new Traffic();
  /** The answer cache of every area (answer-cache.ts), shared like the journal; emptied on reset. */
  readonly answers: AnswerCache;
  /** Memory of the answers being sent (answer-budget.ts), shared by every port. */
  readonly answersInFlight: AnswerBudget;
  #errorRandom!: Random;
  #latencyRandom!: Random;
  #listeners = new Set<ResetListener>();
  #shutdown = new AbortController();

  constructor(
    readonly config: Pick<Config, 'journalSize' | 'faultSeed' | 'adminToken'> &
      Partial<Pick<Config, 'latency' | 'errorRate' | 'journalBodyBytes' | 'answerCacheMb'>>,
    budgets: { answersInFlightBytes?: number } = {},
  ) {
    this.answersInFlight = new AnswerBudget(budgets.answersInFlightBytes);
    // Every delayed request listens on it until its delay ends: thousands at once are expected, not a leak.
    setMaxListeners(0, this.#shutdown.signal);
    this.journal = new Journal(config.journalSize, config.adminToken, config.journalBodyBytes ?? 4096);
    this.controls = new LiveControls({ latency: config.latency ?? null, errorRate: config.errorRate ?? 0 });
    this.journal.subscribe((record) => {
      if (record.area !== null) this.traffic.add(record.area, record.status, record.time);
    });
    this.answers = new AnswerCache((config.answerCacheMb ?? 0) * 1024 * 1024, this.journal.bodyBytes);
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

  /** The time a journal entry records; tests set it, like `sleep`. */
  now: () => number = Date.now;

  /**
   * How a simulated delay waits: a timer that shutdown ends at once. Tests put a clock of their own here,
   * so that no test depends on how long a timer really took.
   */
  sleep: (ms: number, signal: AbortSignal) => Promise<void> = (ms, signal) =>
    wait(ms, undefined, { signal }).then(
      () => undefined,
      () => undefined,
    );

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
    this.traffic.clear();
    this.controls.clear();
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
