// The request journal: a ring buffer of the last N area requests, with secrets masked.
import { performance } from 'node:perf_hooks';
import type { IncomingHttpHeaders } from 'node:http';
import type { AreaName } from '../area.js';
import { bodyText, maskedBytes, stringHeaders } from './journal-bodies.js';
import {
  type AddedRecord,
  type Answered,
  type JournalRecord,
  type RecordHead,
  type RequestNote,
  SlotRing,
} from './journal-ring.js';
import { MASK, type TokenMask, hideToken, isSecretName, tokenMask } from './secrets.js';

export type { AddedRecord, Answered, JournalRecord, RecordHead, RequestNote };

export interface JournalEntry {
  id: number;
  method: string;
  /** null for a request outside every area that a stub saw (see src/stubs/). */
  area: AreaName | null;
  operationId: string | null;
  path: string;
  query: Record<string, string | string[]>;
  headers: Record<string, string | string[]>;
  /** null when no response was sent (fault reset or empty). */
  status: number | null;
  durationMs: number;
  timestamp: string;
  /** The fault injected into this response, if any. */
  fault: string | null;
  /** True when the status came from `Prefer: code` or the error rate rather than the data. */
  forced: boolean;
  /** The scenario the request was made in, or null. */
  scenario: string | null;
  /** The request body as text, secrets masked, cut at --journal-body-bytes; null when there was none. */
  requestBody: string | null;
  /** The answer's headers (the admin token masked). */
  responseHeaders: Record<string, string | string[]>;
  /** The answer's body as text, cut like the request's; binary bodies are described, not shown. */
  responseBody: string | null;
  /** The stub mapping that answered (its id, and its name when the mapping has one), or null. */
  stub: { id: string; name: string | null } | null;
}

/** An entry without its headers and bodies. */
export type JournalSummary = Omit<JournalEntry, 'headers' | 'requestBody' | 'responseHeaders' | 'responseBody'>;

/** Keyed by the raw request, so the note goes when the request does. */
export const requestNotes = new WeakMap<object, RequestNote>();

/** Bytes of a request body the journal keeps. */
export const JOURNAL_BODY_BYTES = 64 * 1024;

export interface JournalFilter {
  area?: string;
  operation?: string;
  /** An exact status (`404`) or a class (`4xx`). */
  status?: string;
  /** ISO timestamps, inclusive. */
  since?: string;
  until?: string;
  limit?: number;
  /** Only requests made in this scenario. */
  scenario?: string;
}

function maskValue(name: string, value: string): string {
  // Keep the scheme: "is it Bearer or Basic?" is a question people debug.
  if (name.toLowerCase().endsWith('authorization')) {
    const space = value.indexOf(' ');
    return space > 0 ? `${value.slice(0, space)} ${MASK}` : MASK;
  }
  return MASK;
}

export function maskHeaders(
  headers: IncomingHttpHeaders,
  adminToken: TokenMask | null,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  const hide = (name: string, v: string) => {
    if (isSecretName(name)) return maskValue(name, v);
    // A URL in a header (Referer, X-Original-URL, ...) carries its query's secrets too.
    return v.includes('?') ? maskUrl(v, adminToken) : hideToken(v, adminToken);
  };
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name] = Array.isArray(value) ? value.map((v) => hide(name, v)) : hide(name, value);
  }
  return out;
}

/** Query of a raw URL as an object; repeated keys become lists, secret values are masked. */
export function maskedQuery(url: string, adminToken: TokenMask | null): Record<string, string | string[]> {
  const q = url.indexOf('?');
  // No prototype: keys such as `constructor` or `__proto__` are parameters like any other.
  const out: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  if (q < 0) return out;
  for (let [key, rawValue] of new URLSearchParams(url.slice(q + 1))) {
    const secret = isSecretName(key) || (adminToken !== null && rawValue.includes(adminToken.token));
    const value = secret ? MASK : rawValue;
    key = hideToken(key, adminToken);
    const prev = out[key];
    out[key] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
  }
  return out;
}

/**
 * A raw URL for a log line: secret query values become ***, the rest is left byte for byte as the
 * client sent it (no re-encoding), so the line still matches what the client's own log shows.
 */
export function maskUrl(url: string, adminToken: TokenMask | null): string {
  const q = url.indexOf('?');
  if (q < 0) return hideToken(url, adminToken);
  // One pass over the query, and the token hidden once over the whole: a part at a time cost a header value
  // of 31,000 `&`s (a URL in a header) tens of milliseconds, for each entry of a journal listing.
  const query = url
    .slice(q + 1)
    .replace(QUERY_PAIR, (pair, lead: string, name: string) => (isSecretName(name) ? `${lead}${name}=${MASK}` : pair));
  return hideToken(`${url.slice(0, q)}?${query}`, adminToken);
}

/** A `name=value` pair of a query: its lead (`&` or the start), its raw name. */
const QUERY_PAIR = /(^|&)([^&=]*)=[^&]*/g;

function statusMatches(status: number | null, wanted: string): boolean {
  if (/^\dxx$/i.test(wanted)) return status !== null && Math.floor(status / 100) === Number(wanted[0]);
  return status === Number(wanted);
}

export type JournalListener = (record: AddedRecord) => void;

export class Journal {
  #ring: SlotRing;
  #listeners = new Set<JournalListener>();
  #lastId = 0;
  /** A stub's name by id; the journal keeps only the id, the stubs know the rest. */
  #stubName: (id: string) => string | undefined = () => undefined;

  /** The admin token as readers must never see it (--admin-token). */
  private readonly adminToken: TokenMask | null;

  constructor(
    readonly capacity: number,
    adminToken: string | null = null,
    /** How much of each body a reader sees (--journal-body-bytes). */
    readonly bodyBytes = 4096,
  ) {
    this.#ring = new SlotRing(capacity, bodyBytes);
    this.adminToken = tokenMask(adminToken);
  }

  get size(): number {
    return this.#ring.size;
  }

  nextId(): number {
    this.#lastId += 1;
    return this.#lastId;
  }

  /** Records a finished request (the one way a record is made, whichever path answered it). */
  add(a: Answered): void {
    if (this.capacity === 0) return;
    const slot = this.#ring.claim();
    slot.write(a, Math.round((performance.now() - a.started) * 100) / 100, a.note);
    if (this.#listeners.size !== 0) for (const listener of this.#listeners) listener(slot);
  }

  /** Calls `listener` with every record added from now on; returns a function that stops it. */
  subscribe(listener: JournalListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** How readers learn a stub's name from the id a record keeps. */
  nameStubs(nameOf: (id: string) => string | undefined): void {
    this.#stubName = nameOf;
  }

  /** One raw record by id (unmasked: for matching only), while the journal still holds it. */
  record(id: number): JournalRecord | undefined {
    for (const slot of this.#ring.newestFirst()) if (slot.id === id) return slot.snapshot();
    return undefined;
  }

  /** One entry by id, masked, while the journal still holds it. */
  get(id: number): JournalEntry | undefined {
    const record = this.record(id);
    return record && this.#entry(record);
  }

  #matches(
    filter: JournalFilter,
  ): (e: Pick<JournalRecord, 'area' | 'operationId' | 'scenario' | 'status' | 'time'>) => boolean {
    const since = filter.since === undefined ? undefined : Date.parse(filter.since);
    const until = filter.until === undefined ? undefined : Date.parse(filter.until);
    return (e) => {
      if (filter.area !== undefined && e.area !== filter.area) return false;
      if (filter.operation !== undefined && e.operationId !== filter.operation) return false;
      if (filter.scenario !== undefined && (e.scenario ?? null) !== filter.scenario) return false;
      if (filter.status !== undefined && !statusMatches(e.status, filter.status)) return false;
      if (since !== undefined || until !== undefined) {
        if (since !== undefined && e.time < since) return false;
        if (until !== undefined && e.time > until) return false;
      }
      return true;
    };
  }

  list(filter: JournalFilter = {}): { total: number; requests: JournalEntry[] } {
    const { total, entries } = this.listing(filter);
    return { total, requests: [...entries] };
  }

  /**
   * The entries `list` gives, made as they are read: a record the journal overwrites before it is read is
   * left out (`count` still counts it).
   */
  listing(filter: JournalFilter = {}): { total: number; count: number; entries: Iterable<JournalEntry> } {
    const matches = this.#matches(filter);
    const limit = filter.limit ?? Infinity;
    const held: { slot: RecordHead & { snapshot(): JournalRecord }; id: number }[] = [];
    let total = 0;
    for (const slot of this.#ring.newestFirst()) {
      if (!matches(slot)) continue;
      total += 1;
      if (held.length < limit) held.push({ slot, id: slot.id });
    }
    const entry = (r: JournalRecord) => this.#entry(r);
    return {
      total,
      count: held.length,
      entries: {
        *[Symbol.iterator]() {
          for (const { slot, id } of held) if (slot.id === id) yield entry(slot.snapshot());
        },
      },
    };
  }

  /**
   * A record without its headers and bodies, masked: what a list of requests shows (the live stream
   * sends these, a tenth of an entry's bytes; a reader fetches the whole entry by id).
   */
  summary(r: JournalRecord): JournalSummary {
    const q = r.url.indexOf('?');
    return {
      id: r.id,
      method: r.method,
      area: r.area,
      operationId: r.operationId,
      path: hideToken(q < 0 ? r.url : r.url.slice(0, q), this.adminToken),
      query: maskedQuery(r.url, this.adminToken),
      status: r.status,
      durationMs: r.durationMs,
      timestamp: new Date(r.time).toISOString(),
      fault: r.fault,
      forced: r.forced,
      scenario: r.scenario ?? null,
      stub: r.stubId === undefined ? null : { id: r.stubId, name: this.#stubName(r.stubId) ?? null },
    };
  }

  #entry(r: JournalRecord): JournalEntry {
    return {
      ...this.summary(r),
      headers: maskHeaders(r.headers, this.adminToken),
      requestBody: bodyText(r.requestBody, this.bodyBytes, this.adminToken),
      responseHeaders: maskHeaders(stringHeaders(r.responseHeaders), this.adminToken),
      responseBody: bodyText(r.responseBody, this.bodyBytes, this.adminToken),
    };
  }

  /**
   * Raw records, newest first (the `limit` newest), unmasked: for matching only; show them through `masked`.
   * Each is parsed from its slot: a reader that needs a few asks for a few.
   */
  records(limit = Number.POSITIVE_INFINITY): JournalRecord[] {
    const out: JournalRecord[] = [];
    for (const slot of this.#ring.newestFirst()) {
      if (out.length >= limit) break;
      out.push(slot.snapshot());
    }
    return out;
  }

  /**
   * The records held now, newest first, each parsed from its slot only when the reader gets to it: a reader
   * that pauses between records (WireMock's verification, a slice at a time) spreads the parsing over those
   * pauses. `keep` chooses by what a slot knows without parsing. A record written over meanwhile (the ring
   * came round) is gone, and is skipped.
   */
  reading(keep: (r: RecordHead) => boolean = () => true): Iterable<JournalRecord> & { size: number } {
    const held = [...this.#ring.newestFirst()].filter(keep).map((slot) => ({ slot, id: slot.id }));
    return {
      size: held.length,
      *[Symbol.iterator]() {
        for (const { slot, id } of held) if (slot.id === id) yield slot.snapshot();
      },
    };
  }

  /** URL, headers and body bytes of a record with secrets masked, as every reader of the journal sees them. */
  masked(r: JournalRecord): { url: string; headers: Record<string, string | string[]>; body: Buffer | undefined } {
    const type = r.headers['content-type'];
    return {
      url: maskUrl(r.url, this.adminToken),
      headers: maskHeaders(r.headers, this.adminToken),
      body: r.body === undefined ? undefined : maskedBytes(r.body, type, this.adminToken),
    };
  }

  /**
   * Removes the records `drop` selects (by what a slot knows without parsing); returns how many went. The
   * others keep their slots, in order: listeners saw them when they were added.
   */
  removeWhere(drop: (r: RecordHead) => boolean): number {
    const before = this.size;
    this.#ring.retain((slot) => !drop(slot));
    return before - this.size;
  }

  count(filter: JournalFilter = {}): number {
    return this.list({ ...filter, limit: 0 }).total;
  }

  /** Empties the journal and returns how many entries it held. */
  clear(): number {
    const n = this.size;
    this.#ring.clear();
    return n;
  }
}
