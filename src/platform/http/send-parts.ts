// Answers the query executor delivered in parts (Delivered in src/query-tasks.ts: a long answer crosses from
// its query process in 1 MiB slices), sent as they are.
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';

/**
 * Sends `parts`, between the optional `before` and `after`. Delivered in one part, the answer goes as one
 * Buffer, which the answer cache can keep; in several, as a stream of their total length, so that megabytes
 * are not copied into one piece on the event loop. The caller sets status and Content-Type.
 */
export function sendParts(
  reply: FastifyReply,
  parts: readonly Uint8Array[],
  before?: Uint8Array,
  after?: Uint8Array,
): FastifyReply {
  const all = [...(before ? [before] : []), ...parts, ...(after ? [after] : [])].map((p) =>
    Buffer.from(p.buffer, p.byteOffset, p.byteLength),
  );
  if (parts.length === 1) return reply.send(all.length === 1 ? all[0] : Buffer.concat(all));
  const length = all.reduce((n, p) => n + p.length, 0);
  return reply.header('content-length', length).send(Readable.from(all));
}
