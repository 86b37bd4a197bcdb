// /__admin/recordings (WireMock's record and snapshot API), and mockyard's extra: recorded answers as a scenario's records.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { ScenarioError } from '../scenarios/errors.js';
import type { AdminContext } from './admin-requests.js';
import { ERROR_CODES, isObject, sendWiremockError } from './errors.js';
import { readyForPatterns } from './patterns.js';
import { type RecordedExchange, scenarioFromRecording } from './to-scenario.js';

/** WireMock's error body: `{"errors": [{"code", "source": {"pointer"}, "title", "detail"}]}`. */
export function sendErrors(
  reply: FastifyReply,
  status: number,
  pointer: string,
  title: string,
  detail: string,
): FastifyReply {
  return sendWiremockError(reply, status, { code: ERROR_CODES.invalid, pointer, title, detail });
}

const SCENARIO_NAME = /^[A-Za-z0-9._-]{1,64}$/;
const validName = (name: unknown): name is string => typeof name === 'string' && SCENARIO_NAME.test(name);
const badName = (reply: FastifyReply) =>
  sendErrors(reply, 422, '/mockyardScenario', 'Invalid scenario', 'must be a scenario name: [A-Za-z0-9._-]{1,64}');

/**
 * `"mockyardScenario": "name"` in a stop or snapshot body: the exchanges become that scenario (DKAN rows
 * and archive item records as records, the rest as its stubs) instead of shared stubs. Answers the
 * scenario's summary, or a WireMock error naming the field.
 */
async function toScenario(
  ctx: AdminContext,
  reply: FastifyReply,
  name: string,
  exchanges: readonly RecordedExchange[],
): Promise<Record<string, unknown> | FastifyReply> {
  const { body, converted } = scenarioFromRecording(exchanges);
  const text = JSON.stringify(body);
  try {
    const { scenario } = await ctx.scenarios.putText(name, text);
    const recordTo = ctx.stubs.recorder.recordTo;
    // Beside the mappings, as --scenarios-dir reads it: the same records load at the next start.
    if (recordTo) {
      mkdirSync(path.join(recordTo, 'scenarios'), { recursive: true });
      writeFileSync(path.join(recordTo, 'scenarios', `${name}.json`), `${JSON.stringify(body, null, 2)}\n`);
    }
    return {
      name,
      areas: [...scenario.areas],
      counts: scenario.counts,
      converted,
      stubs: Array.isArray(body.stubs) ? body.stubs.length : 0,
      path: `/scenarios/${name}`,
    };
  } catch (err) {
    if (!(err instanceof ScenarioError)) throw err;
    return sendErrors(
      reply,
      err.statusCode === 400 ? 422 : err.statusCode,
      err.pointer ?? '',
      'Invalid scenario',
      err.message,
    );
  }
}

export function recordingRoutes(app: FastifyInstance, ctx: AdminContext): void {
  const { store, recorder } = ctx.stubs;
  app.post('/recordings/start', async (request, reply) => {
    const body = isObject(request.body) ? request.body : {};
    const target = body.targetBaseUrl;
    if (typeof target !== 'string' || !/^https?:\/\/[^/?#]+/i.test(target))
      return sendErrors(reply, 422, '/targetBaseUrl', 'Invalid recording', 'targetBaseUrl must be an http(s) URL');
    if (recorder.status === 'Recording')
      return sendErrors(reply, 409, '', 'Already recording', 'Stop the current recording first');
    const capture = isObject(body.captureHeaders) ? Object.keys(body.captureHeaders) : [];
    recorder.start(target, capture);
    return {};
  });
  app.post('/recordings/stop', async (request, reply) => {
    if (recorder.status !== 'Recording') return sendErrors(reply, 400, '', 'Not recording', 'No recording was started');
    const body = isObject(request.body) ? request.body : {};
    if (body.mockyardScenario !== undefined) {
      // Checked before the recording ends, so a typo does not lose it.
      if (!validName(body.mockyardScenario)) return badName(reply);
      const exchanges = recorder.stopExchanges();
      const scenario = await toScenario(ctx, reply, body.mockyardScenario, exchanges);
      return reply.sent ? reply : { mappings: exchanges.map((x) => x.mapping), scenario };
    }
    const mappings = recorder.stop();
    // As WireMock's `persist` default: the recorded mappings answer from now on. A secret query parameter
    // or header is recorded as a pattern (recorder.ts): RE2 may be needed for the first time here.
    await readyForPatterns(mappings);
    store.addAll(mappings);
    return { mappings };
  });
  app.get('/recordings/status', async () => ({ status: recorder.status }));
  app.post('/recordings/snapshot', async (request, reply) => {
    const body = isObject(request.body) ? request.body : {};
    if (body.mockyardScenario !== undefined) {
      if (!validName(body.mockyardScenario)) return badName(reply);
      const exchanges = recorder.exchanges();
      const scenario = await toScenario(ctx, reply, body.mockyardScenario, exchanges);
      return reply.sent ? reply : { mappings: exchanges.map((x) => x.mapping), scenario };
    }
    const mappings = recorder.snapshot();
    if (body.persist !== false) {
      await readyForPatterns(mappings);
      store.addAll(mappings);
    }
    return { mappings };
  });
}
