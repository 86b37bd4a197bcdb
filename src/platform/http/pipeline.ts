// The one path of an area request, step by step in the order they run (docs/architecture.md draws it):
//
//   routing     host and scenario prefix (front server, rewriteUrl), then Fastify's router; limits; store; scenario
//   controls    journal, Prefer, latency, faults, forced statuses              (controls/controls.ts)
//   stubs       a stub matcher may answer here, before any area code          (StubMatcher below)
//   cache       the answer cache: finished bytes and headers                   (answer-cache.ts)
//   handler     the area's route: its one parser, its one error formatter       (areas/<area>/, area-errors.ts)
//   on send     hints, fault bodies, storing a finished answer in the cache
//   journal     the record is completed when the response is done             (controls/journal.ts)
//
// One onRequest hook and one onSend hook carry all of it. A plain stub answer or a cached answer that needs
// no other step (no control, CORS or request log in play) is written before Fastify is entered: `front` below.
// Node's `performance` and `Buffer` globals are getters on globalThis, called at every use; an import is not.
import { performance } from 'node:perf_hooks';
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AnswerCachePolicy, AreaDefinition, AreaName } from '../area.js';
import type { Config } from '../../config.js';
import { controlStep, faultPayload, journalPayload, type RequestState } from '../controls/controls.js';
import type { Answered, RequestNote } from '../controls/journal.js';
import type { Runtime } from '../controls/runtime.js';
import { holdStore, type Stores } from '../data/stores.js';
import { SCENARIO_HEADER, type Scenario, scenarioStep, type Scenarios } from '../../scenarios/registry.js';
import { answerKey, type FixedAnswer } from './answer-cache.js';
import { hintStep } from './hints.js';
import { MAX_PARAM_LENGTH, urlLimitBreach, withinLimits } from './limits.js';
import { keepTickShape } from './tick-shape.js';

/**
 * A matcher of user-defined stubs (WireMock-format mappings): it may answer an area request after the
 * controls and before the answer cache and the area handler, so a stub's answer is journaled, masked and
 * controlled like any other. `size` 0 skips the step (and lets cached answers take the front path).
 */
export interface StubMatcher {
  readonly size: number;
  /** True when a stub answered the request (it has called reply.send). */
  answer(request: FastifyRequest, reply: FastifyReply, area: AreaDefinition): boolean | Promise<boolean>;
  /**
   * The front path's question about a GET without a body, at `url` in `area` (undefined: outside every
   * area), in `scenario`: the fixed answer of the stub that matches and what the journal notes of it; null
   * when no stub matches; undefined when only the stub step can answer (a recording, a stub not plain).
   * Pure: nothing moves (a plain stub has no scenario state).
   */
  front(
    req: IncomingMessage,
    url: string,
    area: AreaDefinition | undefined,
    scenario: Scenario | undefined,
  ): { answer: FixedAnswer; note: RequestNote } | null | undefined;
}

export interface PipelineOptions {
  config: Config;
  runtime: Runtime;
  stores: Stores;
  scenarios: Scenarios;
  areas: readonly AreaDefinition[];
  areaOf: (url: string) => AreaDefinition | undefined;
  /** What the plugins before the pipeline (CORS) add to every answer of a request without Origin. */
  frontHeaders: OutgoingHttpHeaders;
}

type RawHandler = (req: IncomingMessage, res: ServerResponse) => void;

export class Pipeline {
  /** Set by the stubs feature; null until then. */
  stubs: StubMatcher | null = null;
  /** Whether each answer is logged one by one (request-log.ts): then every request goes through Fastify. */
  requestLog = false;
  #closing = false;
  readonly #policies: Map<AreaName, AnswerCachePolicy>;
  /** A tick object held for the server's life: it keeps the fast code of Node's HTTP path (tick-shape.ts). */
  readonly keptTick: object | null = keepTickShape();

  constructor(readonly options: PipelineOptions) {
    const { config, areas } = options;
    this.#policies = new Map();
    for (const area of areas) {
      const policy = area.answerCache?.(config);
      if (policy) this.#policies.set(area.name, policy);
    }
  }

  /**
   * The server's request listener: a plain stub answer or a cached answer that needs no other step is
   * written here, the way a bare node:http server would; everything else goes on to Fastify (`handler`).
   */
  front(handler: RawHandler): RawHandler {
    return (req, res) => {
      if (!this.#front(req, res)) handler(req, res);
    };
  }

  #front(req: IncomingMessage, res: ServerResponse): boolean {
    const { runtime, areaOf } = this.options;
    // Controls can be switched on at run time (the dashboard), so this is read per request.
    if (req.method !== 'GET' || this.#closing || runtime.controls.active || this.requestLog) return false;
    const headers = req.headers;
    if (headers.prefer !== undefined || headers.origin !== undefined) return false;
    const url = req.url ?? '/';
    // Path scenarios are rewritten by Fastify's rewriteUrl: those go the long way.
    if (url.startsWith('/scenarios/')) return false;
    const area = areaOf(url);
    const scenario = area ? this.#scenarioNamed(headers) : null;
    if (scenario === undefined) return false;
    const stubs = this.stubs;
    if (stubs !== null && stubs.size > 0) {
      // A cached answer may go out only when no stub could have answered the request.
      const stubbed = this.#fromStub(stubs, req, res, url, area, scenario);
      if (stubbed !== null) return stubbed;
    }
    return area !== undefined && this.#fromCache(req, res, url, area, scenario);
  }

  /** The scenario an area request is made in (header, else the default); undefined when the long way must tell. */
  #scenarioNamed(headers: IncomingHttpHeaders): string | null | undefined {
    const named = headers[SCENARIO_HEADER];
    if (named === undefined) return this.options.scenarios.defaultName;
    return typeof named === 'string' && named.trim() !== '' ? named.trim() : undefined;
  }

  /**
   * The stub step on the front path: true when a plain stub answered, null when no stub matches, false
   * when the request must go the long way (a body to match, a bound or a path the router refuses, an
   * unknown scenario, a stub that is not plain).
   */
  #fromStub(
    stubs: StubMatcher,
    req: IncomingMessage,
    res: ServerResponse,
    url: string,
    area: AreaDefinition | undefined,
    scenarioName: string | null,
  ): boolean | null {
    const started = performance.now();
    const headers = req.headers;
    const length = headers['content-length'];
    if ((length !== undefined && length !== '0') || headers['transfer-encoding'] !== undefined) return false;
    if (urlLimitBreach(url) !== null) return false;
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    if (path.length > MAX_PARAM_LENGTH || path.includes('%')) return false;
    const scenario = area && scenarioName !== null ? this.options.scenarios.get(scenarioName) : undefined;
    if (area && scenarioName !== null && !scenario) return false;
    const found = stubs.front(req, url, area, scenario);
    if (found === null) return null;
    // An area's journal names the operation Fastify's router finds for the URL: its stub answers go that way.
    if (found === undefined || area !== undefined) return false;
    const { answer, note } = found;
    res.writeHead(answer.status, { ...this.options.frontHeaders, ...answer.headers });
    res.end(answer.body);
    this.#journalFront({
      area: null,
      operationId: null,
      url,
      headers,
      status: answer.status,
      started,
      scenario: null,
      note,
    });
    return true;
  }

  #fromCache(
    req: IncomingMessage,
    res: ServerResponse,
    url: string,
    area: AreaDefinition,
    scenario: string | null,
  ): boolean {
    const cache = this.options.runtime.answers;
    const policy = this.#policies.get(area.name);
    if (!policy || !cache.enabled) return false;
    const headers = req.headers;
    const hit = cache.get(answerKey(area.name, scenario, 'GET', url, policy.vary, headers));
    if (!hit) return false;
    const started = performance.now();
    res.writeHead(200, hit.headers);
    res.end(hit.body);
    this.#journalFront({
      area: hit.area,
      operationId: hit.operationId,
      url,
      headers,
      status: 200,
      started,
      scenario,
      requestBody: null,
      responseHeaders: hit.headers,
      responseBody: hit.journalBody,
    });
    return true;
  }

  /** The journal record of a GET answered on the front path: no control touched it. */
  #journalFront(answered: Omit<Answered, 'id' | 'method' | 'time' | 'fault' | 'forced'>): void {
    const journal = this.options.runtime.journal;
    if (journal.capacity === 0) return;
    // One literal, not a spread of `answered`: this runs for every answer on the front path.
    journal.add({
      id: journal.nextId(),
      method: 'GET',
      area: answered.area,
      operationId: answered.operationId,
      url: answered.url,
      headers: answered.headers,
      status: answered.status,
      started: answered.started,
      time: Date.now(),
      fault: null,
      forced: false,
      scenario: answered.scenario,
      requestBody: answered.requestBody,
      responseHeaders: answered.responseHeaders,
      responseBody: answered.responseBody,
      note: answered.note,
    });
  }

  /** Installs the pipeline's onRequest and onSend hooks on the root app, before any route is registered. */
  install(app: FastifyInstance): void {
    const { scenarios } = this.options;
    app.decorate('scenarios', scenarios);
    app.decorate('stores', this.options.stores);
    app.decorateRequest('store', null as unknown as FastifyRequest['store']);
    app.decorateRequest('scenario', null);
    app.decorateRequest('areaState', null);
    app.addHook('preClose', (done) => {
      this.#closing = true;
      done();
    });
    app.addHook('onRequest', (request, reply, done) => {
      const answered = this.#onRequest(request, reply);
      if (answered === false) return done();
      if (answered !== true) answered.then((a) => a || done(), done);
    });
    app.addHook('onSend', (request, reply, payload, done) => {
      const state = request.areaState;
      if (state === null) return done(null, payload);
      hintStep(state.area, request, reply, this.options.config);
      journalPayload(this.options.runtime, reply, state, payload);
      const out = faultPayload(this.options.runtime, request, reply, state, payload);
      if (out instanceof Promise) return void out.then((p) => done(null, p), done);
      done(null, this.#store(request, reply, state, out));
    });
  }

  /** routing (limits, store, scenario), then the area steps; true or a promise of true when answered. */
  #onRequest(request: FastifyRequest, reply: FastifyReply): boolean | Promise<boolean> {
    const { areaOf, stores, scenarios, runtime } = this.options;
    if (!withinLimits(request, reply, areaOf)) return true;
    holdStore(stores, request, reply);
    const area = areaOf(request.url);
    if (!scenarioStep(scenarios, request, reply, area)) return true;
    if (!area) return false;
    const state: RequestState = {
      area,
      operationId: request.routeOptions.schema?.operationId ?? null,
      fault: null,
      forced: false,
      cacheKey: null,
      cacheEpoch: runtime.answers.epoch,
      cached: false,
    };
    request.areaState = state;
    const controlled = controlStep(runtime, request, reply, state);
    if (controlled === true) return true;
    if (controlled === false) return this.#areaSteps(request, reply, state);
    return controlled.then((answered) => answered || this.#areaSteps(request, reply, state));
  }

  /** stubs, then the answer cache; the handler runs when neither answered. */
  #areaSteps(request: FastifyRequest, reply: FastifyReply, state: RequestState): boolean | Promise<boolean> {
    const stubs = this.stubs;
    if (stubs !== null && stubs.size > 0) {
      const stubbed = stubs.answer(request, reply, state.area);
      if (stubbed === true) return true;
      if (stubbed !== false) return stubbed.then((answered) => answered || this.#cacheStep(request, reply, state));
    }
    return this.#cacheStep(request, reply, state);
  }

  #cacheStep(request: FastifyRequest, reply: FastifyReply, state: RequestState): boolean {
    const cache = this.options.runtime.answers;
    const policy = this.#policies.get(state.area.name);
    if (!policy || !cache.enabled || request.method !== 'GET' || state.fault !== null) return false;
    const config = request.routeOptions.config as { answerCache?: boolean } | undefined;
    if (config?.answerCache === false) return false;
    const key = answerKey(
      state.area.name,
      request.scenario?.name ?? null,
      'GET',
      request.url,
      policy.vary,
      request.headers,
    );
    const hit = cache.get(key);
    if (!hit) {
      state.cacheKey = key;
      return false;
    }
    state.cached = true;
    state.responseBody = hit.journalBody;
    void reply.code(200).headers(hit.headers).send(hit.body);
    return true;
  }

  /** The cache's side of onSend: a finished 200 of a request that no control touched is kept as bytes. */
  #store(request: FastifyRequest, reply: FastifyReply, state: RequestState, payload: unknown): unknown {
    if (state.cacheKey === null || state.cached || state.forced || reply.statusCode !== 200) return payload;
    if (request.headers.prefer !== undefined || reply.getHeader('preference-applied') !== undefined) return payload;
    const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
    if (!Buffer.isBuffer(body)) return payload;
    this.options.runtime.answers.set(state.cacheKey, state.cacheEpoch, {
      area: state.area.name,
      operationId: state.operationId,
      headers: reply.getHeaders(),
      body,
    });
    return body;
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The pipeline's state of an area request; null for mockyard's own routes. */
    areaState: RequestState | null;
  }
}
