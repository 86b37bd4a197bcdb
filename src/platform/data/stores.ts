// Which fixture store a request reads: the current generation of the generated data, swapped on rebuilds.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FixtureStore } from './fixture-store.js';
import { whenResponseDone } from '../http/response-done.js';

/** The store every new request gets, and the place a rebuilt one is swapped in. */
export class Stores {
  #current: FixtureStore;
  #onSwap = new Set<() => void>();

  /**
   * `swappable: false` promises that no store will be swapped in while requests run (no watch mode), so
   * requests need not hold the store they read: one listener less on every request.
   */
  constructor(
    initial: FixtureStore,
    readonly options: { swappable: boolean } = { swappable: true },
  ) {
    this.#current = initial;
  }

  get current(): FixtureStore {
    return this.#current;
  }

  /**
   * Makes `next` current. Requests already running keep the store they started with; the old one is
   * closed (and `cleanup` runs) when the last of them is done.
   */
  swap(next: FixtureStore, cleanup?: () => void): void {
    if (!this.options.swappable) throw new Error('these stores were made with swappable: false (no watch mode)');
    const old = this.#current;
    this.#current = next;
    for (const listener of this.#onSwap) listener();
    old.retire(cleanup);
  }

  /** Calls `listener` after every swap (the answer cache empties itself); returns a function that stops it. */
  onSwap(listener: () => void): () => void {
    this.#onSwap.add(listener);
    return () => this.#onSwap.delete(listener);
  }

  close(): void {
    this.#current.close();
  }
}

/** The store step of the pipeline: the request reads the current store, held until its response is done. */
export function holdStore(stores: Stores, request: FastifyRequest, reply: FastifyReply): void {
  const store = stores.current;
  request.store = store;
  if (stores.options.swappable) whenResponseDone(reply.raw, store.acquire());
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The fixture stores of this mockyard (the generated data's current generation). */
    stores: Stores;
  }
  interface FastifyRequest {
    /** The fixture store this request reads from, fixed when it arrives. */
    store: FixtureStore;
  }
}
