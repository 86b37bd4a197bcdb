// The stub step: before an area answers, a matching stub may (seeing the request as the real service would).
import { performance } from 'node:perf_hooks';
import type { IncomingMessage } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AreaDefinition } from '../platform/area.js';
import { JOURNAL_BODY_BYTES, type RequestNote, requestNotes } from '../platform/controls/journal.js';
import { capture } from '../platform/controls/journal-bodies.js';
import { OUTSIDE_BASE, hostnameOf, realHostOf } from '../platform/hosts/real-hosts.js';
import { sendAreaError } from '../platform/http/area-errors.js';
import { sendMockyardError } from '../platform/http/mockyard-errors.js';
import { answerWith, forward, sendAnswer } from './answer.js';
import { StubRequest } from './request.js';
import type { Matched, Stubs } from './world.js';
import type { FixedAnswer } from '../platform/http/answer-cache.js';
import type { StubMatcher } from '../platform/http/pipeline.js';
import type { Runtime } from '../platform/controls/runtime.js';
import { whenResponseDone } from '../platform/http/response-done.js';
import type { Scenario, Scenarios } from '../scenarios/registry.js';

/** Largest request body the stub step reads (Fastify's own default body limit). */
export const MAX_REQUEST_BODY_BYTES = 1024 * 1024;

export interface StubStepOptions {
  stubs: Stubs;
  areaOf: (url: string) => AreaDefinition | undefined;
  /** The area an --area-ports app serves at its root. */
  only?: AreaDefinition;
  runtime: Runtime;
  scenarios: Scenarios;
}

const OWN = /^\/(?:__mockyard|__admin|docs|openapi\.json)(?:[/?]|$)/;

/** The host and path+query the real service would get for a request that mockyard got at `url`. */
export function realView(
  url: string,
  area: AreaDefinition | undefined,
  only: AreaDefinition | undefined,
  real: { hostname: string; basePath: string } | undefined,
  hostHeader: string | undefined,
): { host: string; url: string } | undefined {
  if (!area) return OWN.test(url) ? undefined : { host: hostnameOf(hostHeader ?? ''), url };
  let rest = only ? url : url.slice(area.prefix.length);
  if (!rest.startsWith('/')) rest = `/${rest}`;
  if (rest.startsWith(OUTSIDE_BASE)) return { host: real?.hostname ?? '', url: rest.slice(OUTSIDE_BASE.length) };
  return { host: real?.hostname ?? area.upstream.host, url: (real ? real.basePath : area.upstream.basePath) + rest };
}

/** Requests outside every area are journaled here (area requests by the controls' journal step). */
function journalFree(runtime: FastifyInstance['runtime'], request: FastifyRequest, reply: FastifyReply): void {
  if (runtime.journal.capacity === 0) return;
  const started = performance.now();
  const time = Date.now();
  const id = runtime.journal.nextId();
  whenResponseDone(reply.raw, () => {
    const note = requestNotes.get(request.raw);
    runtime.journal.add({
      id,
      method: request.method,
      area: null,
      operationId: null,
      url: request.url,
      headers: request.headers,
      status: reply.raw.headersSent ? reply.raw.statusCode : null,
      started,
      time,
      fault: null,
      forced: false,
      scenario: request.scenario?.name ?? null,
      requestBody: capture(note?.body, request.headers['content-type'], runtime.journal.bodyBytes),
      note,
    });
  });
}

function readBody(payload: Readable, limit: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    payload.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        payload.removeAllListeners('data');
        payload.resume();
        resolve(null);
      } else parts.push(chunk);
    });
    payload.once('end', () => resolve(Buffer.concat(parts)));
    payload.once('error', reject);
  });
}

const hasBody = (request: FastifyRequest): boolean => {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
};

/**
 * The pipeline's `stubs` step (pipeline.ts) for area requests without a body, answered in onRequest; a
 * preParsing step for requests with a body (their bytes are matched) and for paths outside every area.
 */
export class StubStep implements StubMatcher {
  constructor(readonly options: StubStepOptions) {}

  /** What is in play: shared mappings, a recording, or scenarios with stubs of their own. */
  get size(): number {
    const { stubs, scenarios } = this.options;
    return stubs.store.size + (stubs.recorder.target === null ? 0 : 1) + scenarios.stubbed;
  }

  answer(request: FastifyRequest, reply: FastifyReply, area: AreaDefinition): boolean | Promise<boolean> {
    if (hasBody(request)) return false;
    const seen = this.#seen(request, area);
    if (!seen) return false;
    return this.#run(request, reply, seen, undefined);
  }

  front(
    req: IncomingMessage,
    url: string,
    area: AreaDefinition | undefined,
    scenario: Scenario | undefined,
  ): { answer: FixedAnswer; note: RequestNote } | null | undefined {
    const { stubs, only } = this.options;
    if (stubs.recorder.target !== null) return undefined;
    const seen = realView(url, area, only, realHostOf(req), req.headers.host);
    if (!seen) return null;
    const matched = stubs.match(new StubRequest('GET', seen.url, seen.host, req.headers, undefined), scenario?.stubs);
    if (!matched) return null;
    const plain = matched.stub.plain;
    return plain === null ? undefined : { answer: plain, note: { stubId: matched.stub.id, seenAs: seen } };
  }

  #seen(request: FastifyRequest, area: AreaDefinition | undefined): { host: string; url: string } | undefined {
    const seen = realView(request.url, area, this.options.only, realHostOf(request.raw), request.headers.host);
    if (seen) requestNotes.set(request.raw, { seenAs: seen });
    return seen;
  }

  /** Matches and answers; false when the request goes on unchanged. */
  #run(
    request: FastifyRequest,
    reply: FastifyReply,
    seen: { host: string; url: string },
    body: Buffer | undefined,
  ): boolean | Promise<boolean> {
    const { stubs } = this.options;
    const view = new StubRequest(request.method, seen.url, seen.host, request.headers, body);
    if (stubs.recorder.target !== null) return this.#decide(request, reply, view, undefined).then(() => true);
    // A body is matched a slice at a time, so its patterns cannot hold other clients up: a JSONPath with `..`
    // over 40 KB takes about 5 ms, and two hundred stubs of one held the event loop for a second.
    if (body !== undefined && body.length > 0)
      return stubs
        .matchSliced(view, request.scenario?.stubs)
        .then((matched) => (matched ? this.#respond(request, reply, view, matched) : false));
    const matched = stubs.match(view, request.scenario?.stubs);
    return matched ? this.#respond(request, reply, view, matched) : false;
  }

  #respond(request: FastifyRequest, reply: FastifyReply, view: StubRequest, matched: Matched): true | Promise<true> {
    const r = matched.stub.response;
    // The common answer (bytes from the mapping, no delay, no upstream) goes out without a promise.
    if (r.delayMs === 0 && !r.proxyBaseUrl && !r.bodyFileName && !r.fault) {
      const note = requestNotes.get(request.raw);
      if (note) note.stubId = matched.stub.id;
      matched.store.served(matched.stub);
      sendAnswer(reply, r.status, r.headers, r.body, matched.stub.id, r.chunked);
      return true;
    }
    return this.#decide(request, reply, view, matched).then(() => true as const);
  }

  async #decide(request: FastifyRequest, reply: FastifyReply, view: StubRequest, matched: Matched | undefined) {
    const { stubs, runtime } = this.options;
    const target = stubs.recorder.target;
    const note = requestNotes.get(request.raw);
    if (matched) {
      if (note) note.stubId = matched.stub.id;
      matched.store.served(matched.stub);
      const delay = matched.stub.response.delayMs;
      if (delay > 0) await sleep(delay, undefined, { signal: runtime.shutdownSignal }).catch(() => undefined);
    }
    const proxy = target ?? matched?.stub.response.proxyBaseUrl ?? null;
    if (proxy === null) return answerWith(matched!.stub, request, reply, stubs.filesRoot);
    try {
      const extra = matched?.stub.response.proxyHeaders ?? [];
      const answer = await forward(proxy, view, extra, runtime.shutdownSignal, stubs.via);
      stubs.recorder.capture(view, answer);
      sendAnswer(reply, answer.status, answer.headers, answer.body, matched?.stub.id ?? 'recording');
    } catch (err) {
      request.log.warn({ err, upstream: proxy }, 'proxied request failed');
      reply.code(500).type('text/plain').header('mockyard-error', 'upstream unreachable');
      reply.send(
        `Network failure trying to make a proxied request from mockyard to ${proxy}${view.url}\n${(err as Error).message}`,
      );
    }
  }

  /** Requests with a body (matched on their bytes) and paths outside every area; area requests without one were matched in onRequest. */
  installBodyStep(app: FastifyInstance): void {
    const { areaOf, runtime } = this.options;
    app.addHook('preParsing', (request, reply, payload, done) => {
      if (this.size === 0) return done(null, payload);
      const area = areaOf(request.url);
      const withBody = hasBody(request);
      if (area && !withBody) return done(null, payload);
      const seen = this.#seen(request, area);
      if (!seen) return done(null, payload);
      if (!area) journalFree(runtime, request, reply);
      const go = (body: Buffer | undefined) => {
        const answered = this.#run(request, reply, seen, body);
        const next = () => done(null, body === undefined ? payload : Readable.from([body]));
        if (answered === false) return next();
        // A large body is matched off the loop: when no stub took it, the request goes on as a small one does.
        if (answered !== true)
          answered.then(
            (taken) => {
              if (!taken) next();
            },
            (err: Error) => done(err),
          );
      };
      if (!withBody) return go(undefined);
      readBody(payload, MAX_REQUEST_BODY_BYTES).then(
        (body) => {
          if (body === null) {
            const message = `The request body is larger than ${MAX_REQUEST_BODY_BYTES} bytes.`;
            if (area) sendAreaError(area, request, reply, 413, message);
            else sendMockyardError(reply, 413, message);
            return;
          }
          const note = requestNotes.get(request.raw);
          // A copy of the part kept: a view into the body would keep all of it (up to 1 MiB) for the record.
          if (note)
            note.body = body.length > JOURNAL_BODY_BYTES ? Buffer.from(body.subarray(0, JOURNAL_BODY_BYTES)) : body;
          go(body);
        },
        (err: Error) => done(err),
      );
    });
  }
}
