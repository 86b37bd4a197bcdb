// Test controls on every area request: Prefer code/delay/fault, server-wide latency and error rate, and the journal.
import { setTimeout as sleep } from 'node:timers/promises';
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AreaDefinition, AreaPluginOptions } from '../areas/types.js';
import type { FixtureStore } from './fixture-store.js';
import type { Config } from '../config.js';
import { dropConnection, malformedPayload, slowPayload } from './faults.js';
import { PreferError, parsePrefer, type FaultKind, type Preferences } from './prefer.js';
import { areaOf } from './limits.js';
import { between } from './prng.js';
import type { Runtime } from './runtime.js';

export interface ControlsOptions {
  areas: readonly AreaDefinition[];
  /** Set when the app serves one area at the root of its own port. */
  only: AreaDefinition | undefined;
  runtime: Runtime;
  config: Config;
  store: FixtureStore;
}

/** Statuses the error rate picks first, when the operation documents them: what the real service sends under load. */
const ERROR_RATE_STATUS: Partial<Record<AreaDefinition['name'], number>> = { archive: 503, marketcheck: 429 };

interface RequestState {
  area: AreaDefinition;
  operationId: string | null;
  fault: FaultKind | null;
  forced: boolean;
}

export function errorRateStatus(area: AreaDefinition, statuses: readonly number[]): number | undefined {
  const preferred = ERROR_RATE_STATUS[area.name];
  if (preferred !== undefined && statuses.includes(preferred)) return preferred;
  return statuses.find((s) => s >= 400);
}

function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

function areaResolver(opts: ControlsOptions): (url: string) => AreaDefinition | undefined {
  const only = opts.only;
  if (only) {
    // On an area's own port everything but mockyard's own routes belongs to the area.
    return (url) => {
      const p = pathOf(url);
      return p.startsWith('/__mockyard') || p === '/openapi.json' || p === '/docs' || p.startsWith('/docs/') ? undefined : only;
    };
  }
  return (url) => areaOf(url, opts.areas);
}

/**
 * A preference the operation cannot honour. The client under test usually parses the area's error
 * body, so when the operation documents a 400 it gets exactly that, with the explanation in a
 * `Mockyard-Error` header; otherwise mockyard's own JSON error.
 */
function rejectPreference(request: FastifyRequest, reply: FastifyReply, state: RequestState, message: string, context: AreaPluginOptions): FastifyReply {
  reply.header('mockyard-error', message);
  const documented = state.operationId === null ? [] : (state.area.forced.statuses[state.operationId] ?? []);
  if (state.operationId !== null && documented.includes(400)) {
    return state.area.forced.send(request, reply, state.operationId, 400, context);
  }
  return reply.code(400).send({ statusCode: 400, error: 'Bad Request', message });
}

async function controls(app: FastifyInstance, opts: ControlsOptions): Promise<void> {
  const { runtime, config } = opts;
  // What forced responses get to read: the store and config of this app.
  const context: AreaPluginOptions = { config, store: opts.store };
  app.decorate('runtime', runtime);
  const areaOf = areaResolver(opts);
  const states = new WeakMap<FastifyRequest, RequestState>();

  app.addHook('onRequest', async (request, reply) => {
    const area = areaOf(request.url);
    if (!area) return;
    const operationId = request.routeOptions.schema?.operationId ?? null;
    const state: RequestState = { area, operationId, fault: null, forced: false };
    states.set(request, state);

    if (runtime.journal.capacity > 0) {
      const started = process.hrtime.bigint();
      const time = Date.now();
      const id = runtime.journal.nextId();
      reply.raw.once('close', () => {
        const noResponse = state.fault === 'reset' || state.fault === 'empty' || !reply.raw.headersSent;
        runtime.journal.add({
          id,
          method: request.method,
          area: area.name,
          operationId,
          url: request.url,
          headers: request.headers,
          status: noResponse ? null : reply.raw.statusCode,
          durationMs: Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100,
          time,
          fault: state.fault,
          forced: state.forced,
        });
      });
    }

    let prefs: Preferences;
    try {
      prefs = parsePrefer(request.headers.prefer);
    } catch (err) {
      if (err instanceof PreferError) return rejectPreference(request, reply, state, err.message, context);
      throw err;
    }
    const applied: string[] = [];

    // Drawn on every area request, so the n-th request of a run always gets the same draws.
    const latency = config.latency ? between(runtime.latencyRandom, config.latency[0], config.latency[1]) : 0;
    const failDraw = config.errorRate > 0 ? runtime.errorRandom() * 100 : Infinity;

    const delay = prefs.delay ? between(runtime.latencyRandom, prefs.delay[0], prefs.delay[1]) : latency;
    if (prefs.delay) applied.push(`delay=${delay}`);
    if (delay > 0) await sleep(delay);

    if (prefs.fault) {
      state.fault = prefs.fault;
      if (prefs.fault === 'reset' || prefs.fault === 'empty') {
        dropConnection(request, reply, prefs.fault);
        return reply;
      }
      applied.push(`fault=${prefs.fault}`);
    }

    if (operationId === null) {
      if (applied.length > 0) reply.header('preference-applied', applied.join(', '));
      return;
    }
    const documented = area.forced.statuses[operationId] ?? [];
    let status: number | undefined;
    if (prefs.code !== undefined && prefs.code >= 400) {
      if (!documented.includes(prefs.code)) {
        const list = documented.length > 0 ? documented.join(', ') : 'none';
        return rejectPreference(
          request,
          reply,
          state,
          `Prefer: code=${prefs.code} is not a documented response of ${operationId}; the statuses it can be forced to are: ${list}`,
          context,
        );
      }
      status = prefs.code;
      applied.push(`code=${status}`);
    } else if (prefs.code === undefined && failDraw < config.errorRate) {
      status = errorRateStatus(area, documented);
    }
    if (applied.length > 0) reply.header('preference-applied', applied.join(', '));
    if (status !== undefined) {
      state.forced = true;
      return area.forced.send(request, reply, operationId, status, context);
    }
  });

  app.addHook('onSend', (request, reply, payload, done) => {
    const state = states.get(request);
    if (!state?.fault || request.method === 'HEAD') return done(null, payload);
    if (state.fault === 'malformed') {
      malformedPayload(request, reply, payload).then((p) => done(null, p), (err: Error) => done(err));
      return;
    }
    if (state.fault === 'slow') return done(null, slowPayload(reply, payload));
    return done(null, payload);
  });
}

export const controlsPlugin = fp(controls, { name: 'mockyard-controls' });
