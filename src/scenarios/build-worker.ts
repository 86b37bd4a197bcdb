// The scenario builder's process: parses, checks and writes a scenario's database, so the server never does.
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ScenarioBodyChecker, buildScenarioInTurns, parseScenarioText, type BuiltScenario } from './build.js';
import { ScenarioError } from './errors.js';
import type { BuildJob, BuildOutcome } from './builder.js';
import { writeMappingsFile } from './stubs.js';

/** Mappings go back as a file of lines, so the server builds their store in slices (see stubStoreFromFile). */
function handedOver(built: BuiltScenario): BuiltScenario {
  if (!built.stubs) return built;
  const stubsFile = writeMappingsFile(built.stubs, path.join(built.dir, 'mappings.jsonl'));
  return { ...built, stubs: null, stubsFile };
}

async function build(job: BuildJob, checker: ScenarioBodyChecker): Promise<BuiltScenario> {
  const text = readFileSync(job.bodyPath, 'utf8');
  rmSync(job.bodyPath, { force: true });
  return handedOver(await buildScenarioInTurns(job.name, parseScenarioText(text), checker, job.dir));
}

async function run(job: BuildJob, checker: ScenarioBodyChecker): Promise<BuildOutcome> {
  try {
    return { id: job.id, built: await build(job, checker) };
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

/** The builds this process runs: one at a time, in the order sent, since a job can arrive while a build yields. */
class BuildQueue {
  /** The build in progress: if the server goes away in its middle, no one else is left to remove its folder. */
  #building: BuildJob | undefined;
  #queue = Promise.resolve();
  readonly #checker = new ScenarioBodyChecker();

  add(job: BuildJob): void {
    this.#queue = this.#queue.then(async () => {
      this.#building = job;
      const outcome = await run(job, this.#checker);
      // A server killed outright can be gone before this process hears of it: without a callback, the failed
      // write would be an unhandled 'error' and a stack trace on the terminal the two share.
      if (!process.connected) this.serverGone(job.dir);
      process.send!(outcome, undefined, undefined, (err: Error | null) => {
        if (err) this.serverGone(job.dir);
      });
      this.#building = undefined;
    });
  }

  /** The server went away (its IPC channel closed): the builder ends too, and takes the folder it was building. */
  serverGone(dir = this.#building?.dir): never {
    if (dir) rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  }
}

const builds = new BuildQueue();
process.on('message', (job: BuildJob) => builds.add(job));
// Heard between the turns of a build (see buildScenarioInTurns) as well as between builds.
process.on('disconnect', () => builds.serverGone());
