// Test controls on every area request, as named steps: journal, Prefer, delay, fault, forced status.
import { performance } from 'node:perf_hooks';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AreaDefinition } from '../area.js';
import { documentedErrorStatuses, forcibleStatuses, sendAreaError } from '../http/area-errors.js';
import { sendMockyardError } from '../http/mockyard-errors.js';
import { capture, type CapturedBody } from './journal-bodies.js';
import { sentJson } from '../http/json-body.js';
import { requestNotes } from './journal.js';
import { dropConnection, malformedPayload, slowPayload } from './faults.js';
import { PreferError, parsePrefer, type FaultKind, type Preferences } from './prefer.js';
import { between } from '../../../fixtures/lib/prng.js';
import type { Runtime } from './runtime.js';
import { whenResponseDone } from '../http/response-done.js';

/** Statuses the error rate picks first, when the operation documents them: what the real service sends under load. */
const ERROR_RATE_STATUS: Partial<Record<AreaDefinition['name'], number>> = { archive: 503, marketcheck: 429 };

/** What the pipeline knows about an area request while it runs. */
export interface RequestState {
  area: AreaDefinition;
  operationId: string | null;
  fault: FaultKind | null;
  forced: boolean;
  /** The answer cache key, when the area's answers are cached; its epoch when the request started. */
  cacheKey: string | null;
  cacheEpoch: number;
  /** Served from the answer cache (nothing to store again). */
  cached: boolean;
  /** The answer's payload as sent, when the journal keeps bodies. */
  responseBody?: CapturedBody | null;
}

export function errorRateStatus(area: AreaDefinition, statuses: readonly number[]): number | undefined {
  const preferred = ERROR_RATE_STATUS[area.name];
  if (preferred !== undefined && statuses.includes(preferred)) return preferred;
  return statuses.find((s) => s >= 400);
}

/** Records the request in the journal when its response is done (or the connection is gone). */
function journalStep(runtime: Runtime, request: FastifyRequest, reply: FastifyReply, state: RequestState): void {
  const started = performance.now();
  const time = runtime.now();
  const id = runtime.journal.nextId();
  whenResponseDone(reply.raw, () => {
    const noResponse = state.fault === 'reset' || state.fault === 'empty' || !reply.raw.headersSent;
    const note = requestNotes.get(request.raw);
    runtime.journal.add({
      id,
      method: request.method,
      area: state.area.name,
      operationId: state.operationId,
      url: request.url,
      headers: request.headers,
      status: noResponse ? null : reply.raw.statusCode,
      started,
      time,
      fault: state.fault,
      forced: state.forced,
      scenario: request.scenario?.name ?? null,
      // A stub answers before the body is parsed: its bytes come from the stub step's note.
      requestBody: capture(
        sentJson.get(request.raw) ?? request.body ?? note?.body,
        request.headers['content-type'],
        runtime.journal.bodyBytes,
      ),
      responseHeaders: noResponse ? {} : reply.getHeaders(),
      responseBody: noResponse ? null : state.responseBody,
      note,
    });
  });
}

/**
 * A preference the operation cannot honour: a 400 whose body says why. The client under test usually
 * parses the area's error body, so when the area's 400 can carry a message it gets that shape with the
 * reason as its message; otherwise (archive.org's pages carry none) mockyard's own JSON error. The
 * reason is also in a `Mockyard-Error` header.
 */
function rejectPreference(
  request: FastifyRequest,
  reply: FastifyReply,
  state: RequestState,
  message: string,
): FastifyReply {
  reply.header('mockyard-error', message).header('mockyard-simulated', 'refused-prefer');
  const answer = state.area.formatError({ status: 400, message, request });
  const body = typeof answer.body === 'string' ? answer.body : answer.body.toString('utf8');
  if (body.includes(JSON.stringify(message).slice(1, -1)) || body.includes(message)) {
    return sendAreaError(state.area, request, reply, 400, message);
  }
  return sendMockyardError(reply, 400, message);
}

/** The forced status for this request: `Prefer: code=`, else a draw of the error rate; a string is a refusal. */
function forcedStatus(
  request: FastifyRequest,
  state: RequestState,
  prefs: Preferences,
  failDraw: number,
  errorRate: number,
): number | string | undefined {
  const documented = documentedErrorStatuses(request);
  if (prefs.code !== undefined && prefs.code >= 400) {
    const allowed = forcibleStatuses(request);
    if (!allowed.includes(prefs.code)) {
      return `Prefer: code=${prefs.code} is not a response of ${state.operationId}; the statuses it can be forced to are: ${allowed.join(', ')}`;
    }
    return prefs.code;
  }
  if (prefs.code === undefined && failDraw < errorRate) return errorRateStatus(state.area, documented);
  return undefined;
}

/** Prefer, and the server-wide or per-area controls; true when it answered the request itself. */
async function control(
  runtime: Runtime,
  request: FastifyRequest,
  reply: FastifyReply,
  state: RequestState,
): Promise<boolean> {
  let prefs: Preferences;
  try {
    prefs = parsePrefer(request.headers.prefer);
  } catch (err) {
    if (!(err instanceof PreferError)) throw err;
    rejectPreference(request, reply, state, err.message);
    return true;
  }
  const applied: string[] = [];
  // The server-wide flags, or what the dashboard set for this area.
  const standing = runtime.controls.for(state.area.name);

  // Drawn on every area request, so the n-th request of a run always gets the same draws.
  const latency = standing.latency ? between(runtime.latencyRandom, standing.latency[0], standing.latency[1]) : 0;
  const failDraw = standing.errorRate > 0 ? runtime.errorRandom() * 100 : Infinity;

  const delay = prefs.delay ? between(runtime.latencyRandom, prefs.delay[0], prefs.delay[1]) : latency;
  // Names every cause of a simulated answer, so a test can tell it from a real failure.
  const simulated: string[] = [];
  if (prefs.delay) applied.push(`delay=${delay}`);
  if (delay > 0) simulated.push(prefs.delay ? `delay=${delay}` : `latency=${delay}`);
  // Shutdown ends a pending delay at once: the response goes out now instead of being cut off.
  if (delay > 0) await runtime.sleep(delay, runtime.shutdownSignal);

  const fault = prefs.fault ?? standing.fault;
  if (fault) {
    state.fault = fault;
    if (fault === 'reset' || fault === 'empty') {
      dropConnection(request, reply, fault);
      return true;
    }
    if (prefs.fault) applied.push(`fault=${fault}`);
    simulated.push(`fault=${fault}`);
  }

  const status =
    state.operationId === null ? undefined : forcedStatus(request, state, prefs, failDraw, standing.errorRate);
  if (typeof status === 'string') {
    rejectPreference(request, reply, state, status);
    return true;
  }
  if (status !== undefined && prefs.code === status) applied.push(`code=${status}`);
  if (status !== undefined) simulated.push(prefs.code === status ? `code=${status}` : `error-rate=${status}`);
  if (applied.length > 0) reply.header('preference-applied', applied.join(', '));
  if (simulated.length > 0) reply.header('mockyard-simulated', simulated.join(', '));
  if (status === undefined) return false;
  state.forced = true;
  sendAreaError(state.area, request, reply, status);
  return true;
}

/**
 * The controls step of the pipeline (pipeline.ts): journal, then Prefer, delay, fault and forced status.
 * Returns true when it answered the request itself, a promise only when a control is in play; with no
 * Prefer header and no server-wide control (the usual case) it costs one journal record.
 */
export function controlStep(
  runtime: Runtime,
  request: FastifyRequest,
  reply: FastifyReply,
  state: RequestState,
): boolean | Promise<boolean> {
  if (runtime.journal.capacity > 0) journalStep(runtime, request, reply, state);
  if (!runtime.controls.active && request.headers.prefer === undefined) return false;
  return control(runtime, request, reply, state);
}

/** The journal's side of onSend: the answer's body as sent, kept by reference (or cut to the limit). */
export function journalPayload(runtime: Runtime, reply: FastifyReply, state: RequestState, payload: unknown): void {
  // A cached answer's cut was made once, when it was stored (answer-cache.ts).
  if (runtime.journal.capacity === 0 || runtime.journal.bodyBytes === 0 || state.cached) return;
  const type = reply.getHeader('content-type');
  state.responseBody = capture(payload, typeof type === 'string' ? type : undefined, runtime.journal.bodyBytes, true);
}

/** The fault step of the pipeline's onSend: a malformed or slow body for `Prefer: fault=`. */
export function faultPayload(
  runtime: Runtime,
  request: FastifyRequest,
  reply: FastifyReply,
  state: RequestState,
  payload: unknown,
): unknown | Promise<unknown> {
  if (!state.fault || request.method === 'HEAD') return payload;
  if (state.fault === 'malformed') return malformedPayload(request, reply, payload);
  if (state.fault === 'slow') return slowPayload(reply, payload, (ms) => runtime.sleep(ms, runtime.shutdownSignal));
  return payload;
}
