// A scenario's own WireMock stub mappings (its `stubs` member, or `mappings` as WireMock's import format names it).
import { writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { MappingError } from '../stubs/errors.js';
import { loadRe2Soon, mayHoldRegex, re2Loaded } from '../stubs/patterns.js';
import { StubStore } from '../stubs/store.js';
import { ScenarioError } from './errors.js';

/** The member and its list, as sent; plain JSON, so the builder's process can hand it back. */
export interface ScenarioMappings {
  member: 'stubs' | 'mappings';
  list: unknown[];
}

function storeOf({ member, list }: ScenarioMappings): StubStore {
  const store = new StubStore();
  try {
    store.addAll(list, (i) => `/${member}/${i}`);
  } catch (err) {
    if (err instanceof MappingError) throw new ScenarioError(err.field, err.message.slice(err.field.length + 2));
    throw err;
  }
  return store;
}

/** Checks a body's mappings (a ScenarioError naming the field when one is not a usable mapping). */
export function scenarioMappings(body: { stubs?: unknown; mappings?: unknown }): ScenarioMappings | null {
  if (body.stubs === undefined && body.mappings === undefined) return null;
  const member = body.stubs !== undefined ? 'stubs' : 'mappings';
  const list = body.stubs ?? body.mappings;
  if (!Array.isArray(list)) throw new ScenarioError(`/${member}`, 'must be a list of WireMock stub mappings');
  const mappings = { member, list } as const;
  storeOf(mappings);
  return mappings;
}

/** The store a checked set of mappings answers from in its scenario's requests. */
export function scenarioStubStore(mappings: ScenarioMappings | null): StubStore | null {
  return mappings === null ? null : storeOf(mappings);
}

/** Checked mappings as the builder process hands them over: one mapping's JSON per line of a file. */
export interface MappingsFile {
  member: 'stubs' | 'mappings';
  path: string;
}

export function writeMappingsFile({ member, list }: ScenarioMappings, path: string): MappingsFile {
  writeFileSync(path, list.map((m) => JSON.stringify(m)).join('\n'), { mode: 0o600 });
  return { member, path };
}

/** Work done on the event loop before it turns to other clients. */
const SLICE_MS = 10;

/**
 * The store, built from the builder's file a few mappings at a time: each mapping compiles its patterns,
 * and thousands of them at once would hold the event loop for seconds. The builder checked them all.
 */
export async function stubStoreFromFile(file: MappingsFile): Promise<StubStore> {
  const text = await readFile(file.path, 'utf8');
  const store = new StubStore();
  let sliceStart = performance.now();
  // Each line is JSON.stringify's text of a mapping, so a pattern key is spelled as mayHoldRegex looks for it.
  let re2Ready = re2Loaded();
  for (let from = 0; from < text.length; ) {
    const newline = text.indexOf('\n', from);
    const end = newline < 0 ? text.length : newline;
    const line = text.slice(from, end);
    if (!re2Ready && mayHoldRegex(line)) {
      await loadRe2Soon();
      re2Ready = true;
    }
    store.add(JSON.parse(line));
    from = end + 1;
    if (performance.now() - sliceStart > SLICE_MS) {
      await yieldToLoop();
      sliceStart = performance.now();
    }
  }
  return store;
}
