// A burst of TLS work (secure contexts from PEM, new TLS sockets and their handshakes) must not hold the event
// loop: a thousand tunnels opened at once would otherwise be set up in one turn, and every other request
// (health included) would wait behind them.

/** Runs jobs one per event-loop turn (setImmediate), in order, so I/O of other clients runs in between. */
export class Pacer {
  readonly #queue: (() => void)[] = [];
  #scheduled = false;

  run<T>(job: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push(() => {
        try {
          resolve(job());
        } catch (err) {
          reject(err);
        }
      });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#queue.shift()?.();
      if (this.#queue.length > 0) this.#schedule();
    });
  }
}
