// The scenarios of a running mockyard, and which one a request is made in (path prefix, header or default).
import { rm } from 'node:fs/promises';
import { sendMockyardError } from '../platform/http/mockyard-errors.js';
import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AreaDefinition, AreaName } from '../platform/area.js';
import { sendAreaError } from '../platform/http/area-errors.js';
import { ScenarioBodyChecker, buildScenario, openScenario, type AreaCounts, type BuiltScenario } from './build.js';
import { ScenarioBuilder } from './builder.js';
import { ScenarioError } from './errors.js';
import { SCENARIO_LIMITS, SCENARIO_NAME } from './schema.js';
import type { FixtureStore } from '../platform/data/fixture-store.js';
import { whenResponseDone } from '../platform/http/response-done.js';
import { scenarioStubStore, stubStoreFromFile } from './stubs.js';
import type { StubStore } from '../stubs/store.js';

export const SCENARIO_HEADER = 'mockyard-scenario';

export interface Scenario {
  name: string;
  /** The areas the scenario names: in its requests, they read `store`; the others the generated data. */
  areas: ReadonlySet<AreaName>;
  store: FixtureStore;
  counts: AreaCounts;
  /** Bytes its database and files take on disk. */
  bytes: number;
  /** The scenario's own stub mappings (its `stubs` or `mappings` member), or null. */
  stubs: StubStore | null;
}

export interface ScenarioSummary {
  name: string;
  areas: AreaName[];
  counts: AreaCounts;
}

export const summary = (s: Scenario): ScenarioSummary => ({ name: s.name, areas: [...s.areas], counts: s.counts });

/**
 * Scenarios by name. Shared by the shared port and every --area-ports app. A replaced or removed
 * scenario's store closes (and its files go) once the last request that holds it is done.
 */
export class Scenarios {
  #byName = new Map<string, Scenario>();
  #onChange = new Set<() => void>();
  /** What to do once a retired scenario's store is closed (remove its files). */
  #storeCleanup = new WeakMap<FixtureStore, () => void>();
  #builder = new ScenarioBuilder();
  /** Checks the bodies built on this thread (put); the builder's process has its own. */
  #checker = new ScenarioBodyChecker();

  constructor(
    /** The scenario of requests that name none (--scenario); it need not exist yet. */
    readonly defaultName: string | null = null,
    /** The limits to hold; tests pass smaller ones. */
    readonly limits: { scenarios: number; totalBytes: number } = SCENARIO_LIMITS,
  ) {}

  get(name: string): Scenario | undefined {
    return this.#byName.get(name);
  }

  list(): Scenario[] {
    return [...this.#byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  get size(): number {
    return this.#byName.size;
  }

  /** How many scenarios have stub mappings of their own (the stub step runs only when some do). */
  get stubbed(): number {
    let n = 0;
    for (const s of this.#byName.values()) if (s.stubs) n += 1;
    return n;
  }

  /** Bytes all scenarios hold (their databases and files), at most SCENARIO_LIMITS.totalBytes. */
  get bytes(): number {
    let total = 0;
    for (const s of this.#byName.values()) total += s.bytes;
    return total;
  }

  /**
   * Creates or replaces a scenario from a parsed body, on this thread (at start, and for the
   * programmatic API); a ScenarioError (nothing stored) when the name or body is not usable.
   */
  put(name: string, body: unknown): { scenario: Scenario; replaced: boolean } {
    this.#admit(name);
    const built = buildScenario(name, body, this.#checker);
    return this.#commit(name, built, scenarioStubStore(built.stubs));
  }

  /**
   * The same from the body's JSON text, or from a file holding it (the admin route streams the body there),
   * parsed and built in the builder's process.
   */
  async putText(
    name: string,
    body: string | Buffer | { file: string },
  ): Promise<{ scenario: Scenario; replaced: boolean }> {
    if (typeof body === 'object' && !Buffer.isBuffer(body)) {
      try {
        this.#admit(name);
      } catch (err) {
        void rm(body.file, { force: true }).catch(() => undefined);
        throw err;
      }
    } else this.#admit(name);
    const built =
      typeof body === 'object' && !Buffer.isBuffer(body)
        ? await this.#builder.buildFile(name, body.file)
        : await this.#builder.build(name, body);
    let stubs: StubStore | null = null;
    try {
      stubs = built.stubsFile ? await stubStoreFromFile(built.stubsFile) : scenarioStubStore(built.stubs);
    } catch (err) {
      void rm(built.dir, { recursive: true, force: true }).catch(() => undefined);
      throw err;
    }
    return this.#commit(name, built, stubs);
  }

  #admit(name: string): void {
    if (!SCENARIO_NAME.test(name))
      throw new ScenarioError(null, `The scenario name "${name}" must match [A-Za-z0-9._-]{1,64}.`);
    if (!this.#byName.has(name) && this.#byName.size >= this.limits.scenarios) {
      throw new ScenarioError(
        null,
        `mockyard holds at most ${this.limits.scenarios} scenarios; remove one first (DELETE /__mockyard/scenarios/{name} or POST /__mockyard/reset).`,
        409,
      );
    }
  }

  /** Stores a built scenario when the limits still hold (other PUTs may have finished meanwhile). */
  #commit(name: string, built: BuiltScenario, stubs: StubStore | null): { scenario: Scenario; replaced: boolean } {
    const old = this.#byName.get(name);
    try {
      this.#admit(name);
      const held = this.bytes - (old?.bytes ?? 0);
      if (held + built.bytes > this.limits.totalBytes)
        throw new ScenarioError(
          null,
          `Scenarios may hold at most ${this.limits.totalBytes} bytes together; this one needs ${built.bytes} and ${held} are held. Remove one first (DELETE /__mockyard/scenarios/{name} or POST /__mockyard/reset).`,
          413,
        );
    } catch (err) {
      void rm(built.dir, { recursive: true, force: true }).catch(() => undefined);
      throw err;
    }
    const { store, cleanup } = openScenario(built);
    const scenario: Scenario = {
      name,
      areas: new Set(built.areas),
      store,
      counts: built.counts,
      bytes: built.bytes,
      stubs,
    };
    this.#storeCleanup.set(store, cleanup);
    this.#byName.set(name, scenario);
    if (old) this.#retire(old);
    this.#changed();
    return { scenario, replaced: old !== undefined };
  }

  remove(name: string): boolean {
    const old = this.#byName.get(name);
    if (!old) return false;
    this.#byName.delete(name);
    this.#retire(old);
    this.#changed();
    return true;
  }

  /** Removes every scenario; returns how many there were. */
  clear(): number {
    const all = [...this.#byName.values()];
    this.#byName.clear();
    for (const s of all) this.#retire(s);
    if (all.length > 0) this.#changed();
    return all.length;
  }

  close(): void {
    this.#builder.close();
    this.clear();
  }

  /** Calls `listener` whenever a scenario is created, replaced or removed; returns a function that stops it. */
  onChange(listener: () => void): () => void {
    this.#onChange.add(listener);
    return () => this.#onChange.delete(listener);
  }

  #changed(): void {
    for (const listener of this.#onChange) listener();
  }

  #retire(s: Scenario): void {
    s.store.retire(this.#storeCleanup.get(s.store));
  }
}

// ---- Choosing the scenario of a request ----

const fromPath = new WeakMap<IncomingMessage, string>();
// Any first segment: a name that cannot be a scenario's still gets the area's 404 below, not "no route".
const PREFIX = /^\/scenarios\/([^/?]+)(?=\/|\?|$)/;

/**
 * Fastify's `rewriteUrl`: `/scenarios/{name}/archive/...` is routed as `/archive/...` in scenario
 * {name}, for clients that can change only their base URL.
 */
export function rewriteScenarioPrefix(req: IncomingMessage): string {
  const url = req.url ?? '/';
  // Most requests are not in a path scenario: one character compare instead of a regex.
  if (url.charCodeAt(1) !== 115 /* s */) return url;
  const m = PREFIX.exec(url);
  if (!m) return url;
  fromPath.set(req, m[1]!);
  const rest = url.slice(m[0].length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/** The scenario name a request asks for: path prefix, else the Mockyard-Scenario header, else the default. */
export function requestedScenario(request: FastifyRequest, defaultName: string | null): string | null {
  const byPath = fromPath.get(request.raw);
  if (byPath !== undefined) return byPath;
  const header = request.headers[SCENARIO_HEADER];
  const value = Array.isArray(header) ? header[0] : header;
  if (value !== undefined && value.trim() !== '') return value.trim();
  return defaultName;
}

/** The store an area reads in this request: the scenario's when the scenario names the area. */
export function storeFor(request: FastifyRequest, area: AreaName): FixtureStore {
  const scenario = request.scenario;
  return scenario?.areas.has(area) ? scenario.store : request.store;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The scenarios this mockyard holds. */
    scenarios: Scenarios;
  }
  interface FastifyRequest {
    /** The scenario this request is made in, or null. */
    scenario: Scenario | null;
  }
}

// ---- The scenario step of the pipeline ----

const pathOf = (url: string): string => {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
};

/**
 * After the store step has given the request the generated data: a request made in a scenario gets
 * `request.scenario`, and `request.store` becomes the scenario's store when the scenario names the
 * request's area (held until the response is done, like the generated one). False when the request
 * names an unknown scenario (answered 404).
 */
export function scenarioStep(
  scenarios: Scenarios,
  request: FastifyRequest,
  reply: FastifyReply,
  area: AreaDefinition | undefined,
): boolean {
  const name = requestedScenario(request, scenarios.defaultName);
  if (name === null) return true;
  // Only area requests and the catalog are answered in a scenario; admin, health and docs never are.
  if (!area && pathOf(request.url) !== '/__mockyard/fixtures') return true;
  const scenario = scenarios.get(name);
  if (!scenario) {
    const message = SCENARIO_NAME.test(name)
      ? `Unknown scenario "${name}": create it with PUT /__mockyard/scenarios/${name} (GET /__mockyard/scenarios lists them).`
      : `Unknown scenario "${name}": scenario names match [A-Za-z0-9._-]{1,64} (GET /__mockyard/scenarios lists them).`;
    reply.header('mockyard-error', message);
    if (area) sendAreaError(area, request, reply, 404, message);
    else sendMockyardError(reply, 404, message);
    return false;
  }
  request.scenario = scenario;
  if (area && scenario.areas.has(area.name)) {
    request.store = scenario.store;
    whenResponseDone(reply.raw, scenario.store.acquire());
  }
  return true;
}
