// The one answer cache of every area: finished bytes and headers, keyed by the request as sent.
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { LRUCache } from 'lru-cache';
import type { AreaName } from '../area.js';
import { capture, type CapturedBody } from '../controls/journal-bodies.js';

/** A stub's answer as fixed bytes: status, headers (content-length included) and body. */
export interface FixedAnswer {
  status: number;
  headers: OutgoingHttpHeaders;
  body: Buffer | null;
}

/** A finished 200 answer: what goes on the wire again, with no parsing, query or serialisation. */
export interface CachedAnswer {
  area: AreaName;
  operationId: string | null;
  /** Header names and values as the handler set them (CORS headers excluded), content-length included. */
  headers: OutgoingHttpHeaders;
  body: Buffer;
  /**
   * What the journal keeps of the body, cut once when the answer is stored: every hit's record shares it,
   * so a hit copies no bytes for the journal.
   */
  journalBody: CapturedBody | null;
}

/** Per-entry overhead counted against the byte bound: the key, the header object, the LRU node. */
const ENTRY_OVERHEAD = 256;

/** Headers that belong to one request, never to a stored answer. */
const PER_REQUEST = /^(?:access-control-|preference-applied$|mockyard-|ratelimit-|retry-after$|set-cookie$)/;

/** Characters RFC 3986 calls unreserved: percent-encoded or not, a URI means the same (section 2.3). */
const UNRESERVED = /^[A-Za-z0-9._~-]$/;

/**
 * A request target in RFC 3986's syntax-based normal form (section 6.2.2): percent-encodings in upper case,
 * and those of unreserved characters decoded. Every server reads the two spellings alike; nothing else is
 * changed, since a query's order and its other spellings (`+`, an encoded `&` or `=`) mean something to PHP
 * and ASP.NET binders. Only a target whose every percent-encoding decodes (valid hex, whole UTF-8): a query
 * parser keeps a value with a bad one exactly as sent (`%65` then stays `%65`, not `e`), so there the two
 * spellings mean different things and the target is used as it is.
 */
export function canonicalTarget(url: string): string {
  if (!url.includes('%')) return url;
  try {
    decodeURIComponent(url);
  } catch {
    return url;
  }
  return url.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : `%${hex.toUpperCase()}`;
  });
}

/**
 * The key of a request: area, scenario, method, path and query as sent, in RFC 3986's normal form
 * (canonicalTarget; no reordering: PHP and ASP.NET binders give meaning to order, so two orders are two
 * entries, never one wrong one), then the values of the area's varying headers.
 */
export function answerKey(
  area: AreaName,
  scenario: string | null,
  method: string,
  url: string,
  vary: readonly string[],
  headers: IncomingHttpHeaders,
): string {
  let key = `${area}\0${scenario ?? ''}\0${method}\0${canonicalTarget(url)}`;
  for (const name of vary) {
    const value = headers[name];
    key += `\0${value === undefined ? '' : Array.isArray(value) ? value.join('\n') : value}`;
  }
  return key;
}

/**
 * One LRU bounded in bytes (--answer-cache-mb). Emptied when the generated store is swapped, when a
 * scenario is created, replaced or removed, and on reset; an answer computed across such a change
 * (its request started in an older epoch) is not stored.
 */
export class AnswerCache {
  readonly #lru: LRUCache<string, CachedAnswer> | null;
  #epoch = 0;

  constructor(
    readonly maxBytes: number,
    /** How much of a body the journal keeps (--journal-body-bytes). */
    readonly journalBodyBytes = 0,
  ) {
    this.#lru =
      maxBytes > 0
        ? new LRUCache<string, CachedAnswer>({
            maxSize: maxBytes,
            sizeCalculation: (a, key) => a.body.length + cutBytes(a) + key.length * 2 + ENTRY_OVERHEAD,
          })
        : null;
  }

  get enabled(): boolean {
    return this.#lru !== null;
  }

  /** Changes whenever the cache is emptied. */
  get epoch(): number {
    return this.#epoch;
  }

  get bytes(): number {
    return this.#lru?.calculatedSize ?? 0;
  }

  get size(): number {
    return this.#lru?.size ?? 0;
  }

  get(key: string): CachedAnswer | undefined {
    return this.#lru?.get(key);
  }

  /** Stores a finished answer, unless the cache was emptied since `epoch` (the request's start). */
  set(
    key: string,
    epoch: number,
    answer: Omit<CachedAnswer, 'headers' | 'journalBody'> & { headers: Record<string, unknown> },
  ): void {
    if (!this.#lru || epoch !== this.#epoch || answer.body.length > this.maxBytes / 8) return;
    const headers: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value === undefined || PER_REQUEST.test(name)) continue;
      headers[name] = value as OutgoingHttpHeaders[string];
    }
    // As text, as it goes on the wire: a number would be turned into one on every hit.
    headers['content-length'] = String(answer.body.length);
    const type = headers['content-type'];
    const journalBody = capture(answer.body, typeof type === 'string' ? type : undefined, this.journalBodyBytes);
    // Frozen: shared by every hit, and the journal's slots keep them by reference instead of copying them
    // (controls/journal-ring.ts). Nothing writes to them: writeHead and reply.headers only read.
    this.#lru.set(key, {
      ...answer,
      headers: Object.freeze(headers),
      journalBody: journalBody && Object.freeze(journalBody),
    });
  }

  clear(): void {
    this.#epoch += 1;
    this.#lru?.clear();
  }
}

/** The bytes of a journal cut that are a copy rather than the body itself. */
function cutBytes(answer: CachedAnswer): number {
  const bytes = answer.journalBody?.bytes;
  return Buffer.isBuffer(bytes) && bytes !== answer.body ? bytes.length : 0;
}
