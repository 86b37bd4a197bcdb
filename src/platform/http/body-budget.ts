// Request bodies in flight share one memory budget: slow or stalled uploads cannot pile up past it.
import type { FastifyInstance } from 'fastify';
import type { AreaDefinition } from '../area.js';
import { sendAreaError } from './area-errors.js';
import { sendMockyardError } from './mockyard-errors.js';
import { whenResponseDone } from './response-done.js';

/** Bytes of request bodies mockyard receives at once, counted by what each may grow to. */
export const BODIES_IN_FLIGHT_BYTES = 64 * 1024 * 1024;

/**
 * Each request with a body reserves its Content-Length (or, sent chunked, its route's body limit)
 * before the body is read, and gives it back when the response is done. One that does not fit gets 503
 * with Retry-After: the server is busy, the request itself may be fine.
 */
export function installBodyBudget(
  app: FastifyInstance,
  areaOf: (url: string) => AreaDefinition | undefined,
  budget = BODIES_IN_FLIGHT_BYTES,
): void {
  let reserved = 0;
  app.addHook('preParsing', (request, reply, payload, done) => {
    const length = request.headers['content-length'];
    const chunked = request.headers['transfer-encoding'] !== undefined;
    if (length === undefined && !chunked) return done(null, payload);
    const limit = request.routeOptions.bodyLimit ?? 1024 * 1024;
    const declared = Number(length);
    const bytes = Math.min(chunked || !Number.isFinite(declared) ? limit : declared, limit);
    if (bytes === 0) return done(null, payload);
    if (reserved + bytes > budget) {
      const message = `mockyard is receiving ${reserved} bytes of request bodies and takes at most ${budget} at once; try again shortly.`;
      reply.header('retry-after', '1');
      const area = areaOf(request.url);
      if (area) sendAreaError(area, request, reply, 503, message);
      else void sendMockyardError(reply, 503, message);
      return;
    }
    reserved += bytes;
    whenResponseDone(reply.raw, () => {
      reserved -= bytes;
    });
    done(null, payload);
  });
}

/**
 * Most bytes of a refused request body mockyard reads and drops so that its client gets the answer: enough
 * for a 64 MiB archive file sent as base64 in a scenario (about 86 MiB), which is refused with a 413.
 */
export const REFUSED_BODY_DRAIN_BYTES = 256 * 1024 * 1024;

/**
 * A body refused before it was read whole (too large, not parsable) is read on and dropped, where Fastify
 * would close the connection under it: a client still sending its body would meet a reset (EPIPE,
 * ECONNRESET) instead of the 413, since a socket closed with unread bytes sends RST (nginx's
 * `lingering_close` exists for the same reason). Node reads the rest of a keep-alive request's body
 * itself, and --body-timeout still bounds how long that may take; past REFUSED_BODY_DRAIN_BYTES the
 * connection is closed as before.
 */
export function installRefusedBodyDrain(app: FastifyInstance, limit = REFUSED_BODY_DRAIN_BYTES): void {
  // Fastify marks such answers `connection: close` on its body-parser error path; onError runs on that path
  // only, so answers that went well pay nothing for this.
  app.addHook('onError', (request, reply, _error, done) => {
    const raw = request.raw;
    if (reply.getHeader('connection') !== 'close' || raw.complete || raw.destroyed) return done();
    const length = request.headers['content-length'];
    if (request.headers['transfer-encoding'] === undefined) {
      if (length === undefined || !(Number(length) <= limit)) return done();
    } else {
      let read = 0;
      raw.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > limit) raw.socket.destroy();
      });
    }
    reply.removeHeader('connection');
    done();
  });
}
