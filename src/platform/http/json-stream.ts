// A JSON answer whose one long list is written an item at a time, the event loop let go between chunks.
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';

/** Bytes of JSON gathered before a chunk is sent and other clients get a turn. */
const CHUNK_CHARS = 64 * 1024;

/**
 * `open` (the document up to its list's `[`), each item as JSON, then `close`. Items are read from `items`
 * only as the chunks go: a listing of many large journal entries is built and serialised a chunk at a time,
 * where building it whole and then serialising it (62 MB of entries) held every client for half a second.
 */
function jsonListStream(open: string, items: Iterable<unknown>, close: string): Readable {
  async function* chunks(): AsyncGenerator<string> {
    let text = open;
    let first = true;
    for (const item of items) {
      text += first ? JSON.stringify(item) : `,${JSON.stringify(item)}`;
      first = false;
      if (text.length >= CHUNK_CHARS) {
        yield text;
        text = '';
        await new Promise(setImmediate);
      }
    }
    yield text + close;
  }
  return Readable.from(chunks(), { objectMode: false });
}

/** Answers with that document as JSON (a route's response schema documents it; a stream is not serialised by it). */
export function sendJsonList(reply: FastifyReply, open: string, items: Iterable<unknown>, close: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(jsonListStream(open, items, close));
}
