// A scenario's own WireMock stub mappings (its `stubs` member, or `mappings` as WireMock's import format names it).
import { MappingError } from '../stubs/errors.js';
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
