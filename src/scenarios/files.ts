// --scenarios-dir: every DIR/{name}.json is scenario {name}; with --watch a changed file is loaded again.
import { existsSync, readdirSync, readFileSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { ScenarioError } from './errors.js';
import { SCENARIO_NAME } from './schema.js';
import type { Scenarios } from './registry.js';
import type { WatchLog } from '../platform/data/watch.js';

export class ScenarioFileError extends Error {}

const nameOf = (file: string): string | null => {
  if (!file.endsWith('.json')) return null;
  const name = file.slice(0, -'.json'.length);
  return SCENARIO_NAME.test(name) ? name : null;
};

function loadFile(scenarios: Scenarios, dir: string, file: string, name: string): void {
  const full = path.join(dir, file);
  let body: unknown;
  try {
    body = JSON.parse(readFileSync(full, 'utf8'));
  } catch (err) {
    throw new ScenarioFileError(`${full}: not readable JSON (${(err as Error).message})`);
  }
  try {
    scenarios.put(name, body);
  } catch (err) {
    if (err instanceof ScenarioError) throw new ScenarioFileError(`${full}: ${err.message}`);
    throw err;
  }
}

/** Loads every DIR/{name}.json; the first file that cannot be used stops the start with its path and JSON pointer. */
export function loadScenarioDir(scenarios: Scenarios, dir: string): string[] {
  if (!existsSync(dir)) throw new ScenarioFileError(`scenarios dir ${dir} does not exist`);
  const loaded: string[] = [];
  for (const file of readdirSync(dir).sort()) {
    const name = nameOf(file);
    if (name === null) continue;
    loadFile(scenarios, dir, file, name);
    loaded.push(name);
  }
  return loaded;
}

/** Reloads DIR/{name}.json when it changes and removes the scenario when the file goes; a bad file keeps the previous version. */
export function watchScenarioDir(
  scenarios: Scenarios,
  dir: string,
  log: WatchLog,
  debounceMs = 100,
): { close(): void } {
  const timers = new Map<string, NodeJS.Timeout>();
  const reload = (file: string, name: string) => {
    timers.delete(file);
    try {
      if (!existsSync(path.join(dir, file))) {
        if (scenarios.remove(name)) log.info({ scenario: name }, 'scenario file removed; scenario removed');
        return;
      }
      loadFile(scenarios, dir, file, name);
      log.info({ scenario: name }, 'scenario file reloaded');
    } catch (err) {
      log.error({ err, scenario: name }, 'scenario file not loaded; keeping the previous version');
    }
  };
  const watcher: FSWatcher = watch(dir, (_event, filename) => {
    const file = filename?.toString();
    const name = file ? nameOf(file) : null;
    if (!file || name === null) return;
    clearTimeout(timers.get(file));
    // Editors save in bursts (truncate, write, rename): load once the burst is over.
    timers.set(
      file,
      setTimeout(() => reload(file, name), debounceMs),
    );
  });
  return {
    close() {
      watcher.close();
      for (const t of timers.values()) clearTimeout(t);
      timers.clear();
    },
  };
}
