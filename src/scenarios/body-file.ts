// A scenario PUT's body goes straight from the socket into a file the builder process reads, so the server
// never holds (or joins) a 20 MB body: its chunks are written and freed as they arrive.
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { errorCodes, type FastifyRequest } from 'fastify';
import { bodyFilePath } from './builder.js';

/** What the route's handler gets as `request.body`. */
export interface BodyFile {
  file: string;
}

export const isBodyFile = (body: unknown): body is BodyFile =>
  typeof body === 'object' && body !== null && typeof (body as BodyFile).file === 'string';

/** A content type parser (without parseAs: Fastify hands over the stream) that enforces the route's bodyLimit. */
export function bodyToFile(
  request: FastifyRequest,
  payload: NodeJS.ReadableStream,
  done: (err: Error | null, body?: BodyFile) => void,
): void {
  const limit = request.routeOptions.bodyLimit ?? 1024 * 1024;
  const declared = request.headers['content-length'] === undefined ? null : Number(request.headers['content-length']);
  if (declared !== null && declared > limit) {
    done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
    return;
  }
  const file = bodyFilePath();
  let received = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, next) {
      received += chunk.length;
      if (received > limit) return next(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
      next(null, chunk);
    },
  });
  pipeline(payload, counter, createWriteStream(file, { mode: 0o600, flags: 'wx' })).then(
    () => {
      if (declared === null || declared === received) {
        done(null, { file });
        return;
      }
      void rm(file, { force: true }).catch(() => undefined);
      done(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
    },
    (err: Error & { statusCode?: number }) => {
      void rm(file, { force: true }).catch(() => undefined);
      // As Fastify's own body reader does: a body that could not be read is the client's problem.
      if (!(typeof err.statusCode === 'number' && err.statusCode >= 400)) err.statusCode = 400;
      done(err);
    },
  );
}
