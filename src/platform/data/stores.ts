// Which fixture store a request reads: the current generation of the generated data, swapped on rebuilds.
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { FixtureStore } from './fixture-store.js';

/** The store every new request gets, and the place a rebuilt one is swapped in. */
export class Stores {
  #current: FixtureStore;

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
    old.retire(cleanup);
  }

  close(): void {
    this.#current.close();
  }
}

/**
 * Gives every request `request.store`, held until its response is finished, so that a swap never
 * closes a database or deletes a file under a request that is still using it.
 */
async function storeHooks(app: FastifyInstance, opts: { stores: Stores }): Promise<void> {
  app.decorate('stores', opts.stores);
  app.decorateRequest('store', null as unknown as FixtureStore);
  app.addHook('onRequest', (request, reply, done) => {
    const store = opts.stores.current;
    request.store = store;
    if (opts.stores.options.swappable) reply.raw.once('close', store.acquire());
    done();
  });
}

export const storePlugin = fp(storeHooks, { name: 'mockyard-store', fastify: '5.x' });

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
