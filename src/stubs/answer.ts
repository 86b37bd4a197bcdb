// How a matched stub answers: its status, headers and body, or its fault, or the upstream's answer (proxyBaseUrl).
import { randomBytes } from 'node:crypto';
import { realpath, readFile, stat } from 'node:fs/promises';
import type { OutgoingHttpHeaders } from 'node:http';
import { Socket } from 'node:net';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { dropConnection } from '../platform/controls/faults.js';
import type { FixedAnswer } from '../platform/http/answer-cache.js';
import type { Stub } from './stub.js';
import type { StubRequest } from './request.js';

/** Largest file bodyFileName may send. */
export const MAX_BODY_FILE_BYTES = 64 * 1024 * 1024;
/** Largest upstream answer a proxy stub relays (and recording keeps). */
export const MAX_PROXY_BODY_BYTES = 16 * 1024 * 1024;
const PROXY_TIMEOUT_MS = 30_000;

/** Hop-by-hop and length headers: each connection sets its own. */
const HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'upgrade',
  'proxy-connection',
  'te',
  'trailer',
  'host',
  'content-encoding',
]);

export class BodyFileError extends Error {}

/**
 * A file under __files, never outside it: `..`, absolute names and symbolic links that lead out are
 * refused, as WireMock's FileSource refuses paths outside its root.
 */
export async function readBodyFile(filesRoot: string | null, name: string): Promise<Buffer> {
  if (filesRoot === null) throw new BodyFileError(`bodyFileName "${name}" needs --mappings DIR (its __files folder)`);
  const root = await realpath(filesRoot).catch(() => {
    throw new BodyFileError(`the __files folder ${filesRoot} does not exist`);
  });
  const target = path.resolve(root, name);
  const inside = (p: string) => p === root || p.startsWith(root + path.sep);
  if (path.isAbsolute(name) || !inside(target)) throw new BodyFileError(`bodyFileName "${name}" is outside __files`);
  const real = await realpath(target).catch(() => {
    throw new BodyFileError(`bodyFileName "${name}" does not exist in __files`);
  });
  if (!inside(real)) throw new BodyFileError(`bodyFileName "${name}" is outside __files`);
  const info = await stat(real);
  if (!info.isFile() || info.size > MAX_BODY_FILE_BYTES)
    throw new BodyFileError(`bodyFileName "${name}" is not a file of at most ${MAX_BODY_FILE_BYTES} bytes`);
  return readFile(real);
}

/** WireMock's Fault values, on the raw socket: the client sees a broken connection, not an HTTP error. */
function sendFault(request: FastifyRequest, reply: FastifyReply, fault: NonNullable<Stub['response']['fault']>): void {
  if (fault === 'EMPTY_RESPONSE' || fault === 'CONNECTION_RESET_BY_PEER') {
    dropConnection(request, reply, fault === 'EMPTY_RESPONSE' ? 'empty' : 'reset');
    return;
  }
  reply.hijack();
  const socket = request.raw.socket;
  if (!(socket instanceof Socket)) {
    reply.raw.destroy();
    return;
  }
  if (fault === 'RANDOM_DATA_THEN_CLOSE') {
    socket.end(randomBytes(64));
    return;
  }
  // MALFORMED_RESPONSE_CHUNK: a valid status line and headers, then a chunk that is not one.
  socket.end('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nlorem ipsum');
}

export interface UpstreamAnswer {
  status: number;
  headers: [string, string][];
  body: Buffer;
}

/**
 * Sends the request on to `base` + the path the real service would see; the answer comes back whole. `via`
 * names this server in the forwarded request's Via header (RFC 9110, section 7.6.3): a request that arrives
 * already naming it went round a loop (a proxyBaseUrl or recording target that leads back here), and is
 * refused instead of being forwarded again until the connections run out.
 */
export async function forward(
  base: string,
  req: StubRequest,
  extraHeaders: readonly [string, string][],
  signal: AbortSignal,
  via: string,
): Promise<UpstreamAnswer> {
  const seen = req.headers.via;
  if ((Array.isArray(seen) ? seen.join(',') : (seen ?? '')).split(',').some((hop) => hop.trim() === via))
    throw new Error('the request came back to this mockyard (its Via header names it): the proxy leads round a loop');
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || HOP.has(name)) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  for (const [name, value] of extraHeaders) headers.set(name, value);
  headers.append('via', via);
  const hasBody = req.body !== undefined && req.method !== 'GET' && req.method !== 'HEAD';
  const res = await fetch(base + req.url, {
    method: req.method,
    headers,
    body: hasBody ? new Uint8Array(req.body!) : undefined,
    redirect: 'manual',
    signal: AbortSignal.any([signal, AbortSignal.timeout(PROXY_TIMEOUT_MS)]),
  });
  const body = await upstreamBody(res);
  const out: [string, string][] = [];
  res.headers.forEach((value, name) => {
    if (!HOP.has(name) && name !== 'set-cookie') out.push([name, value]);
  });
  for (const cookie of res.headers.getSetCookie()) out.push(['set-cookie', cookie]);
  return { status: res.status, headers: out, body };
}

/** The upstream body, read no further than MAX_PROXY_BODY_BYTES (the rest is not fetched). */
async function upstreamBody(res: Response): Promise<Buffer> {
  const tooBig = new Error(`the upstream answer is over ${MAX_PROXY_BODY_BYTES} bytes`);
  if (Number(res.headers.get('content-length') ?? 0) > MAX_PROXY_BODY_BYTES) {
    await res.body?.cancel();
    throw tooBig;
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (res.body === null) return Buffer.alloc(0);
  for await (const chunk of res.body) {
    size += chunk.byteLength;
    // Leaving the loop cancels the stream.
    if (size > MAX_PROXY_BODY_BYTES) throw tooBig;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/** A mapping's headers by lower-case name, repeated names as lists (as Fastify's reply.header keeps them). */
function grouped(headers: readonly [string, string][]): Map<string, string | string[]> {
  const out = new Map<string, string | string[]>();
  for (const [name, value] of headers) {
    const key = name.toLowerCase();
    const prev = out.get(key);
    out.set(key, prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value]);
  }
  return out;
}

function setHeaders(reply: FastifyReply, headers: readonly [string, string][]): void {
  for (const [name, value] of grouped(headers)) reply.header(name, value);
}

/**
 * The answer of a stub that nothing but its mapping decides (no delay, fault, proxy, body file or scenario
 * state), as `sendAnswer` would send it, or null. Statuses whose bodies Node or Fastify treat apart (1xx, 204, 304) and
 * chunked answers are left to `sendAnswer`.
 */
export function plainAnswer(stub: Pick<Stub, 'id' | 'response' | 'scenarioName'>): FixedAnswer | null {
  const r = stub.response;
  if (r.delayMs > 0 || r.fault !== null || r.proxyBaseUrl !== null || r.bodyFileName !== null) return null;
  if (stub.scenarioName !== null || r.status < 200 || r.status === 204 || r.status === 304 || r.chunked) return null;
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of grouped(r.headers)) headers[name] = value;
  headers['matched-stub-id'] = stub.id;
  headers['content-length'] = String(r.body?.length ?? 0);
  return { status: r.status, headers, body: r.body };
}

/**
 * Sends an answer through Fastify, so the journal, CORS and the Prefer faults see it like any other.
 * Without a Content-Type from the mapping none is sent, as WireMock sends none.
 */
export function sendAnswer(
  reply: FastifyReply,
  status: number,
  headers: readonly [string, string][],
  body: Buffer | null,
  stubId: string,
  chunked = false,
): FastifyReply {
  reply.code(status);
  setHeaders(reply, headers);
  reply.header('matched-stub-id', stubId);
  if (body === null || body.length === 0) return reply.send();
  // A stream with no Content-Length: Node sends it in chunks (to an HTTP/1.0 client, up to the connection's end).
  if (chunked) return reply.send(Readable.from([body]));
  if (reply.hasHeader('content-type')) return reply.send(body);
  reply.header('content-length', body.length);
  return reply.send(Readable.from([body]));
}

/** Answers with a stub (not a proxy stub: see `forward`). */
export async function answerWith(
  stub: Stub,
  request: FastifyRequest,
  reply: FastifyReply,
  filesRoot: string | null,
): Promise<void> {
  const r = stub.response;
  if (r.fault !== null) {
    sendFault(request, reply, r.fault);
    return;
  }
  let body = r.body;
  if (r.bodyFileName !== null) {
    try {
      body = await readBodyFile(filesRoot, r.bodyFileName);
    } catch (err) {
      if (!(err instanceof BodyFileError)) throw err;
      // WireMock answers a missing body file with a 500; mockyard says why in a header as well.
      reply.header('mockyard-error', err.message);
      sendAnswer(reply, 500, [], null, stub.id);
      return;
    }
  }
  sendAnswer(reply, r.status, r.headers, body, stub.id, r.chunked);
}
