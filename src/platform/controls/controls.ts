// Test controls on every area request, as named steps: journal, Prefer, delay, fault, forced status.
import { setTimeout as sleep } from 'node:timers/promises';
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AreaDefinition } from '../area.js';
import type { Config } from '../../config.js';
import { documentedErrorStatuses, sendAreaError } from '../http/area-errors.js';
import { requestNotes } from './journal.js';
import { dropConnection, malformedPayload, slowPayload } from './faults.js';
import { PreferError, parsePrefer, type FaultKind, type Preferences } from './prefer.js';
import { between } from '../../../fixtures/lib/prng.js';
import type { Runtime } from './runtime.js';

export interface ControlsOptions {
  /** Finds the area a request URL belongs to (undefined for mockyard's own routes). */
  areaOf: (url: string) => AreaDefinition | undefined;
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

/** Records the request in the journal when its response is done (or the connection is gone). */
function journalStep(runtime: Runtime, request: FastifyRequest, reply: FastifyReply, state: RequestState): void {
  const started = process.hrtime.bigint();
  const time = Date.now();
  const id = runtime.journal.nextId();
  reply.raw.once('close', () => {
    const noResponse = state.fault === 'reset' || state.fault === 'empty' || !reply.raw.headersSent;
    runtime.journal.add({
      id,
      method: request.method,
      area: state.area.name,
      operationId: state.operationId,
      url: request.url,
      headers: request.headers,
      status: noResponse ? null : reply.raw.statusCode,
      durationMs: Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100,
      time,
      fault: state.fault,
      forced: state.forced,
      scenario: request.scenario?.name ?? null,
      ...requestNotes.get(request.raw),
    });
  });
}

/**
 * A preference the operation cannot honour. The client under test usually parses the area's error
 * body, so when the operation documents a 400 it gets exactly that, with the explanation in a
 * `Mockyard-Error` header; otherwise mockyard's own JSON error.
 */
function rejectPreference(
  request: FastifyRequest,
  reply: FastifyReply,
  state: RequestState,
  message: string,
): FastifyReply {
  reply.header('mockyard-error', message);
  if (state.operationId !== null && documentedErrorStatuses(request).includes(400)) {
    return sendAreaError(state.area, request, reply, 400);
  }
  return reply.code(400).send({ statusCode: 400, error: 'Bad Request', message });
}

/** The forced status for this request: `Prefer: code=`, else a draw of the error rate; a string is a refusal. */
function forcedStatus(
  request: FastifyRequest,
  state: RequestState,
  prefs: Preferences,
  failDraw: number,
  config: Config,
): number | string | undefined {
  const documented = documentedErrorStatuses(request);
  if (prefs.code !== undefined && prefs.code >= 400) {
    if (!documented.includes(prefs.code)) {
      const list = documented.length > 0 ? documented.join(', ') : 'none';
      return `Prefer: code=${prefs.code} is not a documented response of ${state.operationId}; the statuses it can be forced to are: ${list}`;
    }
    return prefs.code;
  }
  if (prefs.code === undefined && failDraw < config.errorRate) return errorRateStatus(state.area, documented);
  return undefined;
}

async function controls(app: FastifyInstance, opts: ControlsOptions): Promise<void> {
  const { runtime, config } = app;
  const states = new WeakMap<FastifyRequest, RequestState>();
  // With no control configured and no Prefer header, a request only pays for the journal.
  const serverWide = config.latency !== null || config.errorRate > 0;

  /** Prefer and the server-wide controls; true when it answered the request itself. */
  const control = async (request: FastifyRequest, reply: FastifyReply, state: RequestState): Promise<boolean> => {
    let prefs: Preferences;
    try {
      prefs = parsePrefer(request.headers.prefer);
    } catch (err) {
      if (!(err instanceof PreferError)) throw err;
      rejectPreference(request, reply, state, err.message);
      return true;
    }
    const applied: string[] = [];

    // Drawn on every area request, so the n-th request of a run always gets the same draws.
    const latency = config.latency ? between(runtime.latencyRandom, config.latency[0], config.latency[1]) : 0;
    const failDraw = config.errorRate > 0 ? runtime.errorRandom() * 100 : Infinity;

    const delay = prefs.delay ? between(runtime.latencyRandom, prefs.delay[0], prefs.delay[1]) : latency;
    if (prefs.delay) applied.push(`delay=${delay}`);
    // Shutdown ends a pending delay at once: the response goes out now instead of being cut off.
    if (delay > 0) await sleep(delay, undefined, { signal: runtime.shutdownSignal }).catch(() => undefined);

    if (prefs.fault) {
      state.fault = prefs.fault;
      if (prefs.fault === 'reset' || prefs.fault === 'empty') {
        dropConnection(request, reply, prefs.fault);
        return true;
      }
      applied.push(`fault=${prefs.fault}`);
    }

    const status = state.operationId === null ? undefined : forcedStatus(request, state, prefs, failDraw, config);
    if (typeof status === 'string') {
      rejectPreference(request, reply, state, status);
      return true;
    }
    if (status !== undefined && prefs.code === status) applied.push(`code=${status}`);
    if (applied.length > 0) reply.header('preference-applied', applied.join(', '));
    if (status === undefined) return false;
    state.forced = true;
    sendAreaError(state.area, request, reply, status);
    return true;
  };

  // A callback hook: with no control in play (the usual case) a request pays for the journal only, no promise.
  app.addHook('onRequest', (request, reply, done) => {
    const area = opts.areaOf(request.url);
    if (!area) return done();
    const state: RequestState = {
      area,
      operationId: request.routeOptions.schema?.operationId ?? null,
      fault: null,
      forced: false,
    };
    states.set(request, state);
    if (runtime.journal.capacity > 0) journalStep(runtime, request, reply, state);
    if (!serverWide && request.headers.prefer === undefined) return done();
    control(request, reply, state).then(
      (answered) => {
        if (!answered) done();
      },
      (err: Error) => done(err),
    );
  });

  app.addHook('onSend', (request, reply, payload, done) => {
    const state = states.get(request);
    if (!state?.fault || request.method === 'HEAD') return done(null, payload);
    if (state.fault === 'malformed') {
      malformedPayload(request, reply, payload).then(
        (p) => done(null, p),
        (err: Error) => done(err),
      );
      return;
    }
    if (state.fault === 'slow') return done(null, slowPayload(reply, payload));
    return done(null, payload);
  });
}

export const controlsPlugin = fp(controls, {
  name: 'mockyard-controls',
  fastify: '5.x',
  decorators: { fastify: ['runtime', 'config'] },
});
