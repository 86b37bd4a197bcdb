// Answers held in memory until their clients have read them share one budget, as request bodies share theirs
// (body-budget.ts): clients that ask for large answers and then stop reading cannot pile them up.
import { finished } from 'node:stream';

/** Bytes of finished answers mockyard holds for clients at once (a 40,000-definition AGCO page is 57 MB). */
export const ANSWERS_IN_FLIGHT_BYTES = 256 * 1024 * 1024;

/** The part of a reply the budget needs: the response that says when the answer has gone or will not. */
interface HeldBy {
  raw: NodeJS.WritableStream;
}

/**
 * The bytes of answers being sent. An answer is held from when it is ready until its response is done or its
 * connection closes. One that does not fit beside those already held is refused: its caller answers 503 with
 * Retry-After (the server is busy; the same request may be fine later). One answer alone always fits, however
 * large, so nothing that was answered before is refused on an idle server.
 */
export class AnswerBudget {
  #held = 0;

  constructor(readonly limit = ANSWERS_IN_FLIGHT_BYTES) {}

  /** Bytes held now. */
  get held(): number {
    return this.#held;
  }

  /**
   * Holds `bytes` until `reply`'s response has been written or has failed (its client gone, before or after
   * this call: `finished` also tells of a response that ended while the page was being made); false (nothing
   * held) when they do not fit.
   */
  hold(reply: HeldBy, bytes: number): boolean {
    if (this.#held > 0 && this.#held + bytes > this.limit) return false;
    this.#held += bytes;
    // finished calls back once, whichever of the response's ends comes.
    finished(reply.raw, () => {
      this.#held -= bytes;
    });
    return true;
  }

  /** Why an answer was refused, in words an area's busy answer can use. */
  refusal(bytes: number): string {
    const mb = (n: number) => `${Math.ceil(n / (1024 * 1024))} MB`;
    return `${mb(this.#held)} of answers are being sent to other clients, and ${mb(bytes)} more would pass the ${mb(this.limit)} held at once`;
  }
}
