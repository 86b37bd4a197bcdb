// The stored JSON of rows a query process has read, kept by record_number: a page of whole rows (the rank
// path's page, ranked.ts) is then copied from memory instead of looked up row by row in the table's B-tree.
// Over the benchmark's DKAN mix the page rows cost 1.04 µs a row through SQLite (a B-tree descent, the
// page's header parsed again on the memory map, group_concat) and 0.17 µs from here (docs/performance.md).
import { ROW_JSON_COLUMN } from '../../../fixtures/dkan/layout.js';
import type { TakeBytes } from '../../platform/data/answer-arena.js';
import type { FixtureStore } from '../../platform/data/fixture-store.js';
import type { Resource } from './datasets.js';

/**
 * Bytes of row JSON a store's cache holds at most, in all of its resources. Rows read once it is full are
 * read from SQLite each time (nothing is evicted): 100,000 rows of the default data are about 38 MB.
 */
export const ROW_CACHE_BYTES = 48 << 20;
/** The cache grows by blocks of this size, so a small store holds little. */
const BLOCK_BYTES = 4 << 20;

const OPEN = 0x5b; // [
const COMMA = 0x2c;
const CLOSE = 0x5d; // ]
const NONE = new Uint8Array(0);

/** Where a resource's cached rows are: block and offset of each record_number's JSON, and its length (0: not cached). */
interface RowIndex {
  block: Uint16Array;
  at: Uint32Array;
  length: Uint32Array;
}

/** One store's cached rows, for all of its resources, within `maxBytes` (ROW_CACHE_BYTES). */
export class RowCache {
  readonly #blocks: Buffer[] = [];
  #used = 0;
  #held = 0;
  readonly #indexes = new Map<string, RowIndex>();

  constructor(
    readonly store: FixtureStore,
    readonly maxBytes = ROW_CACHE_BYTES,
  ) {}

  /** Bytes of blocks the cache holds. */
  get heldBytes(): number {
    return this.#held;
  }

  /**
   * The JSON array of these rows' stored JSON, in this order: what `json_each` + group_concat gives; between
   * `before` and `after`, so that the answer around it costs no second copy of the rows; in memory from `bytes`.
   */
  page(
    resource: Resource,
    rows: readonly number[],
    before: Uint8Array = NONE,
    after: Uint8Array = NONE,
    bytes: TakeBytes = Buffer.allocUnsafe,
  ): Buffer {
    const index = this.#index(resource);
    const read = this.#readMissing(resource, index, rows);
    let total = 2;
    for (const rn of rows) total += (index.length[rn] || read.get(rn)?.length || -1) + 1;
    const out = bytes(before.length + Math.max(2, total - 1) + after.length);
    out.set(before);
    const open = before.length;
    out[open] = OPEN;
    let at = open + 1;
    for (const rn of rows) {
      const length = index.length[rn] || 0;
      const json = length > 0 ? null : read.get(rn);
      // A record_number the table does not have (none of the rank path's) is left out, as the join leaves it.
      if (length === 0 && json === undefined) continue;
      if (at > open + 1) out[at++] = COMMA;
      if (json) {
        at += json.copy(out, at);
      } else {
        const from = index.at[rn]!;
        at += this.#blocks[index.block[rn]!]!.copy(out, at, from, from + length);
      }
    }
    out[at++] = CLOSE;
    out.set(after, at);
    return out.subarray(0, at + after.length);
  }

  #index(resource: Resource): RowIndex {
    let index = this.#indexes.get(resource.table);
    if (!index) {
      const n = resource.rows + 1;
      index = { block: new Uint16Array(n), at: new Uint32Array(n), length: new Uint32Array(n) };
      this.#indexes.set(resource.table, index);
    }
    return index;
  }

  /** Reads the rows not cached yet, in one statement, and keeps them while there is room. */
  #readMissing(resource: Resource, index: RowIndex, rows: readonly number[]): Map<number, Buffer> {
    const read = new Map<number, Buffer>();
    let missing: number[] | null = null;
    for (const rn of rows) if (!(index.length[rn]! > 0)) (missing ??= []).push(rn);
    if (missing === null) return read;
    const sql = `SELECT record_number, CAST(${ROW_JSON_COLUMN} AS BLOB) FROM ${resource.table} WHERE record_number IN (SELECT value FROM json_each(?))`;
    for (const [rn, json] of this.store.prepare(sql).raw(true).iterate(JSON.stringify(missing)) as Iterable<
      [number, Buffer]
    >) {
      read.set(rn, json);
      if (rn < index.length.length && json.length > 0) this.#keep(index, rn, json);
    }
    return read;
  }

  #keep(index: RowIndex, rn: number, json: Buffer): void {
    let block = this.#blocks[this.#blocks.length - 1];
    if (!block || this.#used + json.length > block.length) {
      const size = Math.max(Math.min(BLOCK_BYTES, this.maxBytes), json.length);
      if (this.#held + size > this.maxBytes) return;
      block = Buffer.allocUnsafeSlow(size);
      this.#blocks.push(block);
      this.#held += size;
      this.#used = 0;
    }
    json.copy(block, this.#used);
    index.block[rn] = this.#blocks.length - 1;
    index.at[rn] = this.#used;
    index.length[rn] = json.length;
    this.#used += json.length;
  }
}

/** The rows' stored JSON as one JSON array, in the given order, from the store's row cache (see `page`). */
export function pageJson(
  store: FixtureStore,
  resource: Resource,
  rows: readonly number[],
  before?: Uint8Array,
  after?: Uint8Array,
  bytes?: TakeBytes,
): Buffer {
  return store.memo('dkan:row-cache', (s) => new RowCache(s)).page(resource, rows, before, after, bytes);
}
