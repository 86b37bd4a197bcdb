// Preloaded into the server by `npm run soak` (node --import): measures the server's own event loop, which the
// product does not report. SIGWINCH (which Node and close-with-grace leave alone) starts the measurement afresh,
// after start-up; the result is printed at exit.
import { monitorEventLoopDelay } from 'node:perf_hooks';

const histogram = monitorEventLoopDelay({ resolution: 10 });
histogram.enable();
process.on('SIGWINCH', () => histogram.reset());
process.on('exit', () => {
  const ms = (ns: number) => (ns / 1e6).toFixed(1);
  process.stderr.write(
    `event-loop-stall: max ${ms(histogram.max)} ms, p99 ${ms(histogram.percentile(99))} ms, mean ${ms(histogram.mean)} ms\n`,
  );
});
