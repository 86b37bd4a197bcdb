// Response bodies that go wrong on purpose: cut short (fault=malformed) or dribbled out (fault=slow).
import { Socket } from 'node:net';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** fault=slow sends the body in pieces of at most this size... */
export const SLOW_MAX_PIECE = 16 * 1024;
/** ...this many milliseconds apart... */
export const SLOW_INTERVAL_MS = 100;
/** ...in at least this many pieces, so even a tiny body takes a while. */
export const SLOW_PIECES = 20;

type Payload = unknown;

function isStream(payload: Payload): payload is Readable {
  return typeof payload === 'object' && payload !== null && typeof (payload as Readable).pipe === 'function';
}

function asBuffer(payload: Payload): Buffer {
  if (payload === undefined || payload === null) return Buffer.alloc(0);
  if (Buffer.isBuffer(payload)) return payload;
  return Buffer.from(String(payload));
}

async function* chunksOf(payload: Payload): AsyncGenerator<Buffer> {
  if (isStream(payload)) {
    for await (const chunk of payload) yield Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
  } else {
    yield asBuffer(payload);
  }
}

function declaredLength(reply: FastifyReply): number | undefined {
  const header = reply.getHeader('content-length');
  const n = Number(header);
  return header === undefined || !Number.isSafeInteger(n) ? undefined : n;
}

/**
 * The real body, sent with its full Content-Length but only the first half of the bytes, then the connection
 * closes; marked `no-store`, so nothing cut short is cacheable.
 */
export async function malformedPayload(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: Payload,
): Promise<Readable> {
  let length = isStream(payload) ? declaredLength(reply) : asBuffer(payload).length;
  let source = payload;
  if (length === undefined) {
    // A stream of unknown length: read it to know how much to promise.
    const parts: Buffer[] = [];
    for await (const chunk of chunksOf(payload)) parts.push(chunk);
    source = Buffer.concat(parts);
    length = (source as Buffer).length;
  }
  // Promise at least one byte more than is sent, so even an empty body counts as cut short.
  const promised = Math.max(length, 1);
  const keep = Math.floor(length / 2);
  reply.header('content-length', String(promised));
  // A cut body must not be kept by a cache as if it were the answer (RFC 9111 §3.3), nor validated later.
  reply.header('cache-control', 'no-store').removeHeader('etag').removeHeader('last-modified');
  const res = reply.raw;
  const socket = request.raw.socket;
  async function* cut(): AsyncGenerator<Buffer> {
    let sent = 0;
    if (keep > 0) {
      for await (const chunk of chunksOf(source)) {
        const part = chunk.subarray(0, keep - sent);
        if (part.length > 0) yield part;
        sent += part.length;
        if (sent >= keep) break;
      }
    }
    if (!(socket instanceof Socket)) return; // inject(): no connection to cut, the body simply ends short
    if (!res.headersSent) res.flushHeaders();
    // Let the piped bytes reach the socket, then close it: end() sends what is queued, then FIN.
    await sleep(10);
    socket.end();
    await sleep(1000);
  }
  return Readable.from(cut(), { objectMode: false });
}

/** The real body, complete, but in small pieces with pauses between them. */
/** `pause` waits between pieces (the runtime's sleep, which tests replace). */
export function slowPayload(reply: FastifyReply, payload: Payload, pause: (ms: number) => Promise<void>): Readable {
  const length = isStream(payload) ? declaredLength(reply) : asBuffer(payload).length;
  if (!isStream(payload)) reply.header('content-length', String(length));
  const piece = Math.max(
    1,
    Math.min(SLOW_MAX_PIECE, Math.ceil((length ?? SLOW_MAX_PIECE * SLOW_PIECES) / SLOW_PIECES)),
  );
  async function* dribble(): AsyncGenerator<Buffer> {
    let first = true;
    for await (const chunk of chunksOf(payload)) {
      for (let at = 0; at < chunk.length; at += piece) {
        if (!first) await pause(SLOW_INTERVAL_MS);
        first = false;
        yield chunk.subarray(at, at + piece);
      }
    }
  }
  return Readable.from(dribble(), { objectMode: false });
}

/** fault=reset and fault=empty: no response at all. */
export function dropConnection(request: FastifyRequest, reply: FastifyReply, kind: 'reset' | 'empty'): void {
  reply.hijack();
  const socket = request.raw.socket;
  if (socket instanceof Socket) {
    if (kind === 'reset') socket.resetAndDestroy();
    else socket.end();
  } else {
    reply.raw.destroy();
  }
}
