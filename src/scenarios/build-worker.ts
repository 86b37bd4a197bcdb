// The scenario builder's thread: parses, checks and writes a scenario's database, so the event loop never does.
import { parentPort } from 'node:worker_threads';
import { buildScenario, parseScenarioText } from './build.js';
import { ScenarioError } from './errors.js';
import type { BuildJob, BuildOutcome } from './builder.js';

function run(job: BuildJob): BuildOutcome {
  try {
    return { id: job.id, built: buildScenario(job.name, parseScenarioText(job.text)) };
  } catch (err) {
    if (err instanceof ScenarioError)
      return { id: job.id, refused: { pointer: err.pointer, problem: err.problem, statusCode: err.statusCode } };
    // A body shaped to exhaust the checker's recursion is the client's problem, not ours.
    if (err instanceof RangeError)
      return {
        id: job.id,
        refused: { pointer: '', problem: 'the body is too deeply nested to check', statusCode: 400 },
      };
    return { id: job.id, failed: (err as Error).stack ?? String(err) };
  }
}

parentPort?.on('message', (job: BuildJob) => parentPort!.postMessage(run(job)));
