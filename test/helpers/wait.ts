// Waiting for what another process makes true (a file gone, a process ended, a server that answers or stops
// answering): no deadline of its own, so a loaded machine is only slower; the test's timeout is the bound.
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Checks `check` (which may be async) every 20 ms until it gives a value (not undefined or false), and
 * resolves with it.
 */
export async function until<T>(check: () => T | undefined | false | Promise<T | undefined | false>): Promise<T> {
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    await sleep(20);
  }
}
