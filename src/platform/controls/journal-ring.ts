// The journal's storage: a ring of slots that are reused as it comes round, each request's URL and header
// values written as bytes into its slot's own region. Recording a request leaves nothing on the heap that
// outlives it: a full journal adds no objects for the garbage collector to promote. (Records as objects,
// with the request's header object and URL, lived for the next 1,000 requests and were each copied into
// the old generation: on a cached answer that cost 13% of the throughput and about 60 MB of resident memory.)
import { Buffer } from 'node:buffer';
import type { IncomingHttpHeaders } from 'node:http';
import type { AreaName } from '../area.js';
import { type CapturedBody, stringHeaders } from './journal-bodies.js';

/**
 * A journaled request as its readers get it (a slot's snapshot): the raw URL and headers, unmasked; the
 * journal masks them for anyone who shows them.
 */
export interface JournalRecord {
  id: number;
  method: string;
  area: AreaName | null;
  operationId: string | null;
  url: string;
  headers: IncomingHttpHeaders;
  status: number | null;
  durationMs: number;
  /** Epoch milliseconds when the request arrived. */
  time: number;
  fault: string | null;
  forced: boolean;
  scenario?: string | null;
  /** The request body, when a stub step read it (kept up to JOURNAL_BODY_BYTES), for WireMock's verification. */
  body?: Buffer;
  /** The stub mapping that answered, if one did. */
  stubId?: string;
  /** The host the stub step saw (the area's real host) and the URL the real service would get. */
  seenAs?: { host: string; url: string };
  requestBody?: CapturedBody | null;
  responseHeaders?: Record<string, unknown>;
  responseBody?: CapturedBody | null;
}

/** What the stub step learnt about a request, picked up when its journal entry is written. */
export type RequestNote = Pick<JournalRecord, 'body' | 'stubId' | 'seenAs'>;

/**
 * A finished request as whichever path answered it knows it (Fastify's journal steps, the pipeline's front
 * path): `started` is performance.now() when it arrived, `note` what the stub step learnt.
 */
export type Answered = Omit<JournalRecord, 'durationMs' | keyof RequestNote> & { started: number; note?: RequestNote };

/** What a slot tells without parsing its URL and headers. */
export interface RecordHead {
  readonly id: number;
  readonly area: AreaName | null;
  readonly status: number | null;
  readonly time: number;
  /** The stub mapping that answered, if one did. */
  readonly stubId?: string | undefined;
}

/** A record as it is added, for the journal's listeners: read it then, or keep `snapshot()` (the slot is reused). */
export interface AddedRecord {
  readonly area: AreaName | null;
  readonly status: number | null;
  readonly time: number;
  snapshot(): JournalRecord;
}

/**
 * Bytes of a slot's own region for the URL and headers (as JSON): enough for a command-line client or an
 * SDK with its credentials. A request that needs more (a long DKAN query, a browser's cookies) is written to
 * the slot's overflow buffer, which the slot keeps and reuses for its later records (see `Slot.write`).
 */
export const SLOT_BYTES = 512;
/**
 * An overflow buffer's size for a record of `bytes`: the next power of two, so that a slot whose records vary
 * a little in length grows its buffer a few times at most. One left far larger than the slot's record needs is
 * given back (SHRINK_ABOVE), so a burst of long requests does not pin its memory.
 */
const spillSize = (bytes: number) => 2 ** Math.ceil(Math.log2(bytes));

/** An overflow buffer over this size is dropped when the slot's record needs less than a quarter of it. */
const SHRINK_ABOVE = 4096;

/** Slots, and their regions, are made this many at a time as the ring first fills. */
const CHUNK_SLOTS = 128;

class Slot implements AddedRecord, RecordHead {
  id = 0;
  method = 'GET';
  area: AreaName | null = null;
  operationId: string | null = null;
  status: number | null = null;
  durationMs = 0;
  time = 0;
  fault: string | null = null;
  forced = false;
  scenario: string | null | undefined = undefined;
  requestBody: CapturedBody | null | undefined = undefined;
  responseHeaders: Record<string, unknown> | undefined = undefined;
  responseBody: CapturedBody | null | undefined = undefined;
  note: RequestNote | undefined = undefined;
  /** Bytes of `[url, headers]` as JSON, in `region` or, when `#spilled`, in `#spill`. */
  #length = 0;
  #spilled = false;
  /** The slot's overflow buffer for records longer than its region: grown when too short, dropped when far too long. */
  #spill: Buffer | null = null;
  /** Whether the response headers are in the JSON text (a third element) rather than in `responseHeaders`. */
  #headersInText = false;
  /** The response body's kept bytes, copied (`#bodyLength` of them; -1 when `responseBody` holds the body). */
  #body: Buffer | null = null;
  #bodyLength = -1;
  /** Whether the kept bytes were a text (given back as one) rather than a Buffer. */
  #bodyIsText = false;
  #bodySize: number | null = null;
  #bodyType: string | undefined = undefined;

  constructor(
    private readonly region: Buffer,
    /** Bytes of a body the journal's readers see (--journal-body-bytes): one more is kept, to tell a cut. */
    private readonly bodyBytes: number,
  ) {}

  get stubId(): string | undefined {
    return this.note?.stubId;
  }

  /**
   * Overwrites the slot with a record: the URL and headers, and an answer's own headers and body, are copied
   * as bytes; the rest by reference.
   */
  write(
    r: Omit<JournalRecord, keyof RequestNote | 'durationMs'>,
    durationMs: number,
    note: RequestNote | undefined,
  ): void {
    this.id = r.id;
    this.method = r.method;
    this.area = r.area;
    this.operationId = r.operationId;
    this.status = r.status;
    this.durationMs = durationMs;
    this.time = r.time;
    this.fault = r.fault;
    this.forced = r.forced;
    this.scenario = r.scenario;
    this.requestBody = r.requestBody;
    this.note = note;
    // A frozen object is an answer cache entry's, shared by its hits and kept anyway: held by reference. An
    // answer's own headers and body bytes are copied into the slot, like the request's URL and headers: held
    // by reference, they lived for the next `capacity` requests, were promoted to the old generation and
    // stayed until its next full collection (downloads under load: about 270 bytes a request, 2.5 MB a
    // second; docs/performance.md).
    const responseHeaders = r.responseHeaders;
    this.#headersInText = responseHeaders !== undefined && !Object.isFrozen(responseHeaders);
    this.responseHeaders = this.#headersInText ? undefined : responseHeaders;
    this.#keepBody(r.responseBody);
    const json = JSON.stringify(
      this.#headersInText ? [r.url, r.headers, stringHeaders(responseHeaders)] : [r.url, r.headers],
    );
    // One pass for the common case: a write that stops short of the region's last 4 bytes wrote the whole
    // text (a UTF-8 character takes at most 4); only a text that may not fit is measured.
    const written = this.region.write(json, 0, SLOT_BYTES, 'utf8');
    const bytes = written <= SLOT_BYTES - 4 ? written : Buffer.byteLength(json);
    this.#length = bytes;
    this.#spilled = bytes > SLOT_BYTES;
    // A buffer far larger than this record needs (left by a burst of long requests) is given back.
    if (this.#spill !== null && this.#spill.length > SHRINK_ABOVE && this.#spill.length > 4 * bytes) this.#spill = null;
    if (this.#spilled) {
      // Kept and reused: a buffer per long record lived for the next `capacity` requests, so it was promoted
      // to the old generation and freed only by the next full collection. Under a steady load of long URLs
      // (DKAN queries sent with credentials) malloc's heap grew by 0.65 MB a second until then
      // (docs/performance.md). Not Buffer.from: it slices a text under 4 KB out of Node's shared 8 KB pool,
      // and the slot would hold the whole slab.
      if (this.#spill === null || this.#spill.length < bytes) this.#spill = Buffer.allocUnsafeSlow(spillSize(bytes));
      this.#spill.write(json, 0, bytes, 'utf8');
    }
  }

  /**
   * A body of bytes or text is copied into the slot's body buffer (a text as UTF-8, cut after `bodyBytes + 1`
   * bytes at a character's end): made when first needed, grown to the longest cut the slot has held (4 MB
   * over 1,000 slots by default). Held by reference, a text lived for the next `capacity` requests, and a
   * cut of a long one (a slice) kept the whole text alive: ten 5 MB answers held 48 MB.
   */
  #keepBody(body: CapturedBody | null | undefined): void {
    const bytes = body?.bytes;
    const isText = typeof bytes === 'string';
    if (!body || (!isText && !Buffer.isBuffer(bytes)) || Object.isFrozen(body)) {
      this.responseBody = body;
      this.#bodyLength = -1;
      return;
    }
    this.responseBody = undefined;
    // A UTF-16 unit takes at most 3 bytes of UTF-8 (a pair of them 4).
    const room = isText ? Math.min(this.bodyBytes + 1, bytes.length * 3) : (bytes as Buffer).length;
    if (this.#body === null || this.#body.length < room) this.#body = Buffer.allocUnsafeSlow(room);
    // write() stops before a character that does not fit whole.
    this.#bodyLength = isText ? this.#body.write(bytes, 0, room, 'utf8') : (bytes as Buffer).copy(this.#body);
    this.#bodyIsText = isText;
    this.#bodySize = body.size;
    this.#bodyType = body.contentType;
  }

  /** The record as an object of its own, unaffected when the slot is reused. */
  snapshot(): JournalRecord {
    const json = (this.#spilled ? this.#spill! : this.region).toString('utf8', 0, this.#length);
    const [url, headers, responseHeaders] = JSON.parse(json) as [string, IncomingHttpHeaders, Record<string, unknown>?];
    const record: JournalRecord = {
      id: this.id,
      method: this.method,
      area: this.area,
      operationId: this.operationId,
      url,
      headers,
      status: this.status,
      durationMs: this.durationMs,
      time: this.time,
      fault: this.fault,
      forced: this.forced,
    };
    // The optional fields exist on a record only when they were given, as they did on the record objects.
    if (this.scenario !== undefined) record.scenario = this.scenario;
    if (this.requestBody !== undefined) record.requestBody = this.requestBody;
    if (this.#headersInText) record.responseHeaders = responseHeaders;
    else if (this.responseHeaders !== undefined) record.responseHeaders = this.responseHeaders;
    if (this.#bodyLength >= 0) {
      const bytes = this.#bodyIsText
        ? this.#body!.toString('utf8', 0, this.#bodyLength)
        : Buffer.from(this.#body!.subarray(0, this.#bodyLength));
      record.responseBody = { bytes, size: this.#bodySize, contentType: this.#bodyType };
    } else if (this.responseBody !== undefined) record.responseBody = this.responseBody;
    return this.note === undefined ? record : { ...record, ...this.note };
  }
}

/** The last `capacity` records, oldest overwritten first. */
export class SlotRing {
  #slots: Slot[] = [];
  #next = 0;
  #size = 0;

  constructor(
    readonly capacity: number,
    /** Bytes of a body the journal's readers see (--journal-body-bytes). */
    readonly bodyBytes: number,
  ) {}

  get size(): number {
    return this.#size;
  }

  /** The slot the next record goes into: a new one while the ring fills, then the oldest. */
  claim(): Slot {
    if (this.#next === this.#slots.length) this.#grow();
    const slot = this.#slots[this.#next]!;
    this.#next = (this.#next + 1) % this.capacity;
    this.#size = Math.min(this.#size + 1, this.capacity);
    return slot;
  }

  #grow(): void {
    const count = Math.min(CHUNK_SLOTS, this.capacity - this.#slots.length);
    const regions = Buffer.allocUnsafeSlow(count * SLOT_BYTES);
    for (let i = 0; i < count; i++)
      this.#slots.push(new Slot(regions.subarray(i * SLOT_BYTES, (i + 1) * SLOT_BYTES), this.bodyBytes));
  }

  /** Newest first. */
  *newestFirst(): Generator<Slot> {
    for (let i = 1; i <= this.#size; i++) yield this.#slots[(this.#next - i + this.capacity) % this.capacity]!;
  }

  /** Keeps the records `keep` chooses, oldest first as they were, in their own slots (nothing re-encoded). */
  retain(keep: (slot: Slot) => boolean): void {
    const kept: Slot[] = [];
    for (let i = this.#size; i >= 1; i--) {
      const slot = this.#slots[(this.#next - i + this.capacity) % this.capacity]!;
      if (keep(slot)) kept.push(slot);
    }
    // The kept slots are the ring's first ones; new slots are made after them as it fills again.
    this.#slots = kept;
    this.#size = kept.length;
    this.#next = this.capacity === 0 ? 0 : kept.length % this.capacity;
  }

  /** Empties the ring and gives its slots' memory back (a journal that fills again makes new ones). */
  clear(): void {
    this.#slots = [];
    this.#next = 0;
    this.#size = 0;
  }
}
