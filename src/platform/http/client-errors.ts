// Requests Node's HTTP parser refuses (a raw control byte, space or byte >= 0x80 in the request line) never reach
// Fastify's routing; they are answered here, in the error shape of the area the request line points into.
import { STATUS_CODES } from './node-http.js';
import type { Socket } from 'node:net';
import type { FastifyRequest } from 'fastify';
import type { AreaDefinition } from '../area.js';
import { mockyardErrorJson } from './mockyard-errors.js';

// Fastify types rawPacket as a JSON'd Buffer; at run time Node hands over the Buffer itself.
type ClientError = Error & { code?: string; rawPacket?: unknown };

/**
 * The request target as far as it can be read from the bytes the parser refused: the text after the
 * method up to the next space or control byte. Enough to find the area's prefix.
 */
export function targetOf(raw: unknown): string | undefined {
  if (!Buffer.isBuffer(raw)) return undefined;
  const line = raw.subarray(0, Math.min(raw.length, 16 * 1024)).toString('latin1');
  const m = /^[A-Z]+ (\/[^\s\x00-\x1f\x7f]*)/.exec(line);
  return m?.[1];
}

const JSON_TYPE = 'application/json; charset=utf-8';

function write(socket: Socket, status: number, contentType: string, body: string | Buffer): void {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  socket.write(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${bytes.length}\r\nContent-Type: ${contentType}\r\nConnection: close\r\n\r\n`,
  );
  socket.write(bytes);
}

/**
 * Fastify's `clientErrorHandler`. Node gives the raw bytes of a request it could not parse
 * (`err.rawPacket`), but no request object: the area's formatter gets a minimal one with the URL and
 * no parameters. A timeout or an oversized header block gets mockyard's own error (408, 431), as
 * before routing no area can be told apart reliably there.
 */
export function clientErrorHandler(areaOf: (url: string) => AreaDefinition | undefined) {
  return function handle(
    this: { log: { trace(obj: object, msg: string): void } },
    err: ClientError,
    socket: Socket,
  ): void {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    this.log.trace({ err }, 'client error');
    if (!socket.writable) {
      socket.destroy(err);
      return;
    }
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      write(socket, 408, JSON_TYPE, mockyardErrorJson(408, 'Client Timeout'));
    } else if (err.code === 'HPE_HEADER_OVERFLOW') {
      write(socket, 431, JSON_TYPE, mockyardErrorJson(431, 'Exceeded maximum allowed HTTP header size'));
    } else {
      const url = targetOf(err.rawPacket);
      const area = url === undefined ? undefined : areaOf(url);
      let sent = false;
      if (area) {
        try {
          const request = { method: 'GET', url, headers: {}, params: {}, query: {} } as unknown as FastifyRequest;
          const answer = area.formatError({
            status: 400,
            message: 'The request line is not valid HTTP.',
            request,
            cause: err,
          });
          write(socket, answer.status ?? 400, answer.contentType, answer.body);
          sent = true;
        } catch {
          // A formatter that needs more of a request than the parser left: the plain answer below.
        }
      }
      if (!sent) write(socket, 400, JSON_TYPE, mockyardErrorJson(400, 'Client Error'));
    }
    socket.destroy(err);
  };
}
