// GET /__mockyard/live: the journal as a stream of server-sent events, for the dashboard.
// Bounded on both ends: at most MAX_STREAMS readers, updates batched every FLUSH_MS with at most
// MAX_BATCH entries each, and a reader that does not keep up loses entries (counted) instead of
// making the server buffer for it. Entries go as summaries (no headers, no bodies), so the stream costs
// the server little per request.
import { sendMockyardError } from '../http/mockyard-errors.js';
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { JournalRecord } from '../controls/journal.js';

export const LIVE_LIMITS = {
  maxStreams: 16,
  flushMs: 250,
  maxBatch: 200,
  /** Entries sent when a reader connects. */
  backlog: 200,
  /** Bytes a reader may have unread before entries are dropped for it. */
  maxUnreadBytes: 1 << 20,
  heartbeatMs: 15_000,
} as const;

export function liveRoute(app: FastifyInstance): void {
  const { runtime } = app;
  const open = new Set<() => void>();
  // A stream never goes idle, so shutdown ends the streams itself before waiting on connections.
  app.addHook('preClose', (done) => {
    for (const end of open) end();
    done();
  });

  app.get(
    '/live',
    {
      schema: {
        operationId: 'mockyard_live',
        // An endless event stream: Swagger UI could never show its answer, so it stays out of /docs
        // (docs/dashboard.md documents it).
        hide: true,
        tags: ['mockyard'],
        summary: 'The request journal as server-sent events (the dashboard reads it)',
        description:
          `Event \`snapshot\` carries the newest ${LIVE_LIMITS.backlog} entries; then event \`requests\` carries ` +
          `{requests, dropped} at most every ${LIVE_LIMITS.flushMs} ms (at most ${LIVE_LIMITS.maxBatch} entries; ` +
          '`dropped` counts entries a slow reader missed). Entries are summaries, masked as in GET /__mockyard/requests ' +
          'but without headers and bodies (GET /__mockyard/requests/{id} has those).',
        produces: ['text/event-stream'],
      },
    },
    (_request: FastifyRequest, reply: FastifyReply) => {
      if (open.size >= LIVE_LIMITS.maxStreams) {
        return sendMockyardError(
          reply,
          429,
          `At most ${LIVE_LIMITS.maxStreams} live streams are open at once; close one (a dashboard tab) and retry`,
        );
      }
      reply.hijack();
      const end = stream(runtime, reply.raw, () => open.delete(end));
      open.add(end);
    },
  );
}

/** Streams the journal to one reader until `end` is called or the reader goes; `release` says whether it was still open. */
function stream(runtime: FastifyInstance['runtime'], res: ServerResponse, release: () => boolean): () => void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    'x-accel-buffering': 'no',
  });
  const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  const { journal } = runtime;
  send(
    'snapshot',
    journal.records(LIVE_LIMITS.backlog).map((r) => journal.summary(r)),
  );

  let pending: JournalRecord[] = [];
  let dropped = 0;
  let timer: NodeJS.Timeout | null = null;
  const flush = () => {
    timer = null;
    if (res.writableLength > LIVE_LIMITS.maxUnreadBytes) {
      dropped += pending.length;
      pending = [];
      return;
    }
    send('requests', { requests: pending.map((r) => journal.summary(r)), dropped });
    pending = [];
    dropped = 0;
  };
  const unsubscribe = journal.subscribe((record) => {
    if (pending.length >= LIVE_LIMITS.maxBatch) dropped += 1;
    else pending.push(record.snapshot());
    timer ??= setTimeout(flush, LIVE_LIMITS.flushMs);
  });
  const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), LIVE_LIMITS.heartbeatMs);
  const end = () => {
    if (!release()) return;
    unsubscribe();
    clearInterval(heartbeat);
    if (timer) clearTimeout(timer);
    res.end();
  };
  runtime.shutdownSignal.addEventListener('abort', end, { once: true });
  res.once('close', end);
  return end;
}
