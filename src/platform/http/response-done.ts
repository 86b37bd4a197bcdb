// What mockyard does once a response is done (written whole, failed, or its client gone): releasing the store
// and the scenario it read, the journal's record, a request body's share of the body budget, a download's
// read-ahead. It all hangs on one 'close' listener per response. With one listener each, beside Node's and
// Fastify's own (a streamed body, a returned reply), an AGCO page in a scenario reached 11 and Node printed
// a MaxListenersExceededWarning ("possible EventEmitter memory leak") to the terminal of a healthy server.
import type { ServerResponse } from 'node:http';

/** Where a response keeps the work waiting for its close, or 'done' once it has run (cheaper than a map). */
const WAITING = Symbol('mockyard.whenResponseDone');
type Waiting = ServerResponse & { [WAITING]?: (() => void)[] | 'done' };

/**
 * Runs `fn` when `res` closes, after the work registered before it; at once when its close has been seen here
 * already. (A close before the first registration is not seen: the answer budget, which registers after a
 * query, uses `stream.finished` for that.)
 */
export function whenResponseDone(res: ServerResponse, fn: () => void): void {
  const held = res as Waiting;
  const list = held[WAITING];
  if (list === 'done') {
    fn();
    return;
  }
  if (list) {
    list.push(fn);
    return;
  }
  const first = [fn];
  held[WAITING] = first;
  res.once('close', () => {
    held[WAITING] = 'done';
    for (const work of first) work();
  });
}
