// One of Node's process.nextTick objects, kept alive for as long as a server runs.
//
// `process.nextTick` queues each callback as an object literal with computed symbol keys
// (lib/internal/process/task_queues.js). V8 holds the hidden classes (maps) of such a literal only weakly:
// from the transition tree, from feedback and from the optimized code that embeds them. When a full
// collection runs while no tick is queued (an idle server, where V8's memory reducer collects), those maps
// die and every optimized function that embeds them is thrown away ("reason: weak objects" under
// --trace-deopt), Node's whole HTTP path included. Re-optimized, the literal's stores no longer find a
// map to transition to and call the runtime instead (Runtime_DefineKeyedOwnPropertyInLiteral): 8-9% of
// the CPU of every answer from then on, 10% of a cached answer's throughput. A server idle for a few
// seconds between bursts of requests (a CI job, a developer's tab, a benchmark's rounds) got there within
// minutes. One tick object that never dies keeps its maps, and the code stays fast.
import { createHook } from 'node:async_hooks';

const noop = (): void => {};

/**
 * A tick object made by `process.nextTick` itself (so its fields have the representations Node's own give
 * them), or null where Node reports none. Hold the result for as long as the server runs.
 */
export function keepTickShape(): object | null {
  let kept: object | null = null;
  const hook = createHook({
    init(_id, type, _trigger, resource) {
      if (type === 'TickObject' && kept === null) kept = resource as object;
    },
  });
  hook.enable();
  try {
    process.nextTick(noop);
  } finally {
    hook.disable();
  }
  return kept;
}
