// The scenario builder's process: parses, checks and writes a scenario's database, so the server never does.
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { buildScenarioInTurns, parseScenarioText, type BuiltScenario } from './build.js';
import { ScenarioError } from './errors.js';
import type { BuildJob, BuildOutcome } from './builder.js';
import { writeMappingsFile } from './stubs.js';

/** Mappings go back as a file of lines, so the server builds their store in slices (see stubStoreFromFile). */
function handedOver(built: BuiltScenario): BuiltScenario {
  if (!built.stubs) return built;
  const stubsFile = writeMappingsFile(built.stubs, path.join(built.dir, 'mappings.jsonl'));
  return { ...built, stubs: null, stubsFile };
}

async function build(job: BuildJob): Promise<BuiltScenario> {
  const text = readFileSync(job.bodyPath, 'utf8');
  rmSync(job.bodyPath, { force: true });
  return handedOver(await buildScenarioInTurns(job.name, parseScenarioText(text), job.dir));
}

async function run(job: BuildJob): Promise<BuildOutcome> {
  try {
    return { id: job.id, built: await build(job) };
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

// One build at a time, in the order sent: another job can arrive while a build lets the event loop run.
let queue = Promise.resolve();
process.on('message', (job: BuildJob) => {
  queue = queue.then(async () => {
    process.send!(await run(job));
  });
});
// The server going away (its IPC channel closing) ends the builder too.
process.on('disconnect', () => process.exit(0));
