// The mappings of one world (mockyard's, or one scenario's): indexed by method and literal path, with WireMock's scenario states.
import { MAPPING_LIMITS, parseMapping } from './mapping.js';
import type { Stub } from './stub.js';
import { MappingError } from './errors.js';
import type { Slicing } from './pattern-match.js';
import { meanDistance, partsSliced, requestMatches, requestMatchesSliced, type StubRequest } from './request.js';

export const STARTED = 'Started';

interface Bucket {
  /** url / urlPath rules by their literal path. */
  exact: Map<string, Stub[]>;
  /** Pattern rules whose literal prefix fixes the first path segment, by that segment. */
  bySegment: Map<string, Stub[]>;
  /** Rules that could match any path. */
  rest: Stub[];
}

export interface NearMiss {
  stub: Stub;
  distance: number;
  /** The parts of the stub's request rule that did not match. */
  misses: string[];
}

export interface ScenarioState {
  id: string;
  name: string;
  state: string;
  possibleStates: string[];
  mappings: Record<string, unknown>[];
}

const firstSegment = (path: string): string => {
  const end = path.indexOf('/', 1);
  return end < 0 ? path.slice(1) : path.slice(1, end);
};

/** The characters a regex may begin with and still be read as a literal path. */
const LITERAL = /^\^?((?:[A-Za-z0-9/_~%,;:@!=&-]|\\[./+*()[\]{}$^|-])*)/;

/** Where the index files a rule: an exact path, a first segment, or nowhere in particular. */
function indexKey(stub: Stub): { exact: string } | { segment: string } | null {
  const u = stub.request.url;
  if (u.kind === 'any') return null;
  if (u.kind === 'url') {
    const q = u.value.indexOf('?');
    return { exact: q < 0 ? u.value : u.value.slice(0, q) };
  }
  if (u.kind === 'urlPath') return { exact: u.value };
  if (!('regex' in u)) return { exact: u.value };
  const source = u.regex.source;
  // An alternation could lead anywhere; a quantifier makes the character before it optional.
  if (source.includes('|')) return null;
  const m = LITERAL.exec(source);
  let literal = (m?.[1] ?? '').replace(/\\(.)/g, '$1');
  if ('*?{'.includes(source.charAt(m?.[0].length ?? 0) || 'x')) literal = literal.slice(0, -1);
  // Only a prefix that closes the first segment (`/items/...`) pins it; `/it.*` could be any segment.
  const end = literal.indexOf('/', 1);
  if (!literal.startsWith('/') || end < 0) return null;
  return { segment: literal.slice(1, end) };
}

export class StubStore {
  #byId = new Map<string, Stub>();
  #index = new Map<string, Bucket>();
  #states = new Map<string, string>();
  #seq = 0;
  /** Mappings per scenario name: a scenario goes with its last mapping. */
  #inScenario = new Map<string, number>();
  /** Regular expressions the stored mappings hold (MAPPING_LIMITS.regexes). */
  #regexes = 0;

  constructor(
    readonly limit: number = MAPPING_LIMITS.mappings,
    readonly regexLimit: number = MAPPING_LIMITS.regexes,
  ) {}

  get size(): number {
    return this.#byId.size;
  }

  get(id: string): Stub | undefined {
    return this.#byId.get(id.toLowerCase());
  }

  /** In the order they are tried: priority, then newest first. */
  list(): Stub[] {
    return [...this.#byId.values()].sort((a, b) => a.priority - b.priority || b.seq - a.seq);
  }

  /** Parses every mapping first, so one bad mapping stores none of them; returns the stored stubs. */
  addAll(inputs: readonly unknown[], at = (i: number) => `/mappings/${i}`): Stub[] {
    const parsed = inputs.map((input, i) => {
      try {
        return parseMapping(input, 0);
      } catch (err) {
        if (err instanceof MappingError)
          throw new MappingError(`${at(i)}${err.field}`, err.message.slice(err.field.length + 2));
        throw err;
      }
    });
    const fresh = new Set(parsed.map((s) => s.id)).size;
    const growing = parsed.filter((s) => !this.#byId.has(s.id)).length;
    if (this.#byId.size + Math.min(growing, fresh) > this.limit)
      throw new MappingError('', `mockyard holds at most ${this.limit} mappings; delete some first`, 409);
    this.#roomForRegexes(parsed);
    for (const stub of parsed) this.#put(stub);
    return parsed;
  }

  add(input: unknown): Stub {
    const stub = parseMapping(input, 0);
    if (!this.#byId.has(stub.id) && this.#byId.size >= this.limit)
      throw new MappingError('', `mockyard holds at most ${this.limit} mappings; delete some first`, 409);
    this.#roomForRegexes([stub]);
    this.#put(stub);
    return stub;
  }

  /** Refuses mappings that would take the regular expressions held past the limit (those they replace go). */
  #roomForRegexes(parsed: readonly Stub[]): void {
    const byId = new Map(parsed.map((s) => [s.id, s]));
    let held = this.#regexes;
    for (const [id, stub] of byId) held += stub.request.regexes - (this.#byId.get(id)?.request.regexes ?? 0);
    if (held > this.regexLimit && held > this.#regexes)
      throw new MappingError(
        '',
        `mockyard's mappings hold at most ${this.regexLimit} regular expressions in all; these would make ${held}`,
        409,
      );
  }

  #put(stub: Stub): void {
    this.#seq += 1;
    stub.seq = this.#seq;
    this.remove(stub.id);
    this.#byId.set(stub.id, stub);
    this.#regexes += stub.request.regexes;
    let bucket = this.#index.get(stub.request.method);
    if (!bucket) {
      bucket = { exact: new Map(), bySegment: new Map(), rest: [] };
      this.#index.set(stub.request.method, bucket);
    }
    const key = indexKey(stub);
    if (key === null) bucket.rest.push(stub);
    else if ('exact' in key) push(bucket.exact, key.exact, stub);
    else push(bucket.bySegment, key.segment, stub);
    if (stub.scenarioName !== null) {
      this.#inScenario.set(stub.scenarioName, (this.#inScenario.get(stub.scenarioName) ?? 0) + 1);
      if (!this.#states.has(stub.scenarioName)) this.#states.set(stub.scenarioName, STARTED);
    }
  }

  remove(id: string): boolean {
    const stub = this.#byId.get(id.toLowerCase());
    if (!stub) return false;
    this.#byId.delete(stub.id);
    this.#regexes -= stub.request.regexes;
    const bucket = this.#index.get(stub.request.method)!;
    const key = indexKey(stub);
    if (key === null) bucket.rest.splice(bucket.rest.indexOf(stub), 1);
    else if ('exact' in key) pull(bucket.exact, key.exact, stub);
    else pull(bucket.bySegment, key.segment, stub);
    const name = stub.scenarioName;
    if (name !== null) {
      const left = (this.#inScenario.get(name) ?? 1) - 1;
      if (left > 0) this.#inScenario.set(name, left);
      else {
        this.#inScenario.delete(name);
        this.#states.delete(name);
      }
    }
    return true;
  }

  clear(): number {
    const n = this.#byId.size;
    this.#byId.clear();
    this.#regexes = 0;
    this.#index.clear();
    this.#states.clear();
    this.#inScenario.clear();
    return n;
  }

  #candidates(req: StubRequest): Stub[][] {
    const out: Stub[][] = [];
    const segment = firstSegment(req.path);
    for (const method of [req.method, 'ANY']) {
      const bucket = this.#index.get(method);
      if (!bucket) continue;
      const exact = bucket.exact.get(req.path);
      if (exact) out.push(exact);
      const bySegment = bucket.bySegment.get(segment);
      if (bySegment) out.push(bySegment);
      if (bucket.rest.length > 0) out.push(bucket.rest);
    }
    return out;
  }

  #inState(stub: Stub): boolean {
    return (
      stub.scenarioName === null ||
      stub.requiredScenarioState === null ||
      this.#states.get(stub.scenarioName) === stub.requiredScenarioState
    );
  }

  /** The stub that answers: among those that match, the highest priority, then the newest (WireMock's order). */
  match(req: StubRequest): Stub | undefined {
    let best: Stub | undefined;
    for (const list of this.#candidates(req)) {
      for (const stub of list) {
        if (best && (stub.priority > best.priority || (stub.priority === best.priority && stub.seq < best.seq)))
          continue;
        if (this.#inState(stub) && requestMatches(stub.request, req)) best = stub;
      }
    }
    return best;
  }

  /** `match` for a request with a body: its patterns are tried a slice at a time (see bodyMatchesSliced). */
  async matchSliced(req: StubRequest, slicing: Slicing): Promise<Stub | undefined> {
    let best: Stub | undefined;
    for (const list of this.#candidates(req)) {
      // A copy: the lists may change while this request waits its turn.
      for (const stub of [...list]) {
        if (best && (stub.priority > best.priority || (stub.priority === best.priority && stub.seq < best.seq)))
          continue;
        if (!this.#byId.has(stub.id)) continue;
        if (this.#inState(stub) && (await requestMatchesSliced(stub.request, req, slicing))) best = stub;
      }
    }
    // The state may have moved while the body was matched: the stub must still be in play.
    return best && this.#byId.get(best.id) === best && this.#inState(best) ? best : undefined;
  }

  /** After a stub answered: its scenario moves on. */
  served(stub: Stub): void {
    if (stub.scenarioName !== null && stub.newScenarioState !== null)
      this.#states.set(stub.scenarioName, stub.newScenarioState);
  }

  /**
   * The closest stubs to a request that none matched (admin reports only: it scans every mapping), with the
   * event loop let in whenever the slicer's time slice is used up, between mappings and between a body's
   * patterns: other clients are answered meanwhile. Like WireMock's, the report is over the mappings as they
   * were when it started.
   */
  async nearMisses(req: StubRequest, slicing: Slicing, count = 3): Promise<NearMiss[]> {
    const found: NearMiss[] = [];
    for (const stub of [...this.#byId.values()]) {
      const wait = slicing.tick();
      if (wait) await wait;
      const list = await partsSliced(stub.request, req, slicing);
      found.push({ stub, distance: meanDistance(list), misses: list.filter((p) => p.d > 0).map((p) => p.what) });
    }
    return found.sort((a, b) => a.distance - b.distance).slice(0, count);
  }

  scenarios(): ScenarioState[] {
    // One pass over the mappings in order, grouped by scenario.
    const byName = new Map<string, Stub[]>();
    for (const s of this.list()) if (s.scenarioName !== null) push(byName, s.scenarioName, s);
    return [...this.#states].map(([name, state]) => {
      const mappings = byName.get(name) ?? [];
      const possible = new Set([STARTED]);
      for (const s of mappings) {
        if (s.requiredScenarioState) possible.add(s.requiredScenarioState);
        if (s.newScenarioState) possible.add(s.newScenarioState);
      }
      return { id: name, name, state, possibleStates: [...possible], mappings: mappings.map((s) => s.json) };
    });
  }

  /** Sets a scenario's state; false when no mapping names that scenario. */
  setState(name: string, state: string | undefined): boolean {
    if (!this.#states.has(name)) return false;
    this.#states.set(name, state ?? STARTED);
    return true;
  }

  resetScenarios(): void {
    for (const name of this.#states.keys()) this.#states.set(name, STARTED);
  }
}

function push(map: Map<string, Stub[]>, key: string, stub: Stub): void {
  const list = map.get(key);
  if (list) list.push(stub);
  else map.set(key, [stub]);
}

function pull(map: Map<string, Stub[]>, key: string, stub: Stub): void {
  const list = map.get(key);
  if (!list) return;
  list.splice(list.indexOf(stub), 1);
  if (list.length === 0) map.delete(key);
}
