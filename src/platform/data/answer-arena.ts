// Memory for the answers a query process sends (src/query-child.ts): taken from a few blocks it keeps, and
// given back all at once when every answer taken has been sent (process.send serializes a message before it
// returns). A DKAN page is about 50 KB on average, and as a Buffer of its own per query it was most of what
// a query process allocated outside V8's heap: under the DKAN mix, that made V8 scavenge every 50 ms and
// collect the whole heap every 200-250 ms ("external memory pressure"), pauses that every request in flight
// waited out (docs/performance.md).

/** Hands out bytes that are only valid until `reset`. */
export type TakeBytes = (size: number) => Buffer;

/** Blocks of this size; an answer longer than a block gets memory of its own. */
const BLOCK_BYTES = 1 << 20;
/** Blocks kept at most: answers beyond them, before a reset, get memory of their own. */
const MAX_BLOCKS = 4;

export class AnswerArena {
  readonly #blocks: Buffer[] = [];
  /** The block being taken from, and how much of it is taken. */
  #block = 0;
  #used = 0;

  constructor(
    readonly blockBytes = BLOCK_BYTES,
    readonly maxBlocks = MAX_BLOCKS,
  ) {}

  /** Bytes held in blocks. */
  get heldBytes(): number {
    return this.#blocks.length * this.blockBytes;
  }

  /** `size` bytes, not zeroed, valid until the next `reset`. */
  readonly take: TakeBytes = (size) => {
    if (size > this.blockBytes) return Buffer.allocUnsafe(size);
    if (this.#used + size > this.blockBytes) {
      this.#block++;
      this.#used = 0;
    }
    if (this.#block >= this.maxBlocks) return Buffer.allocUnsafe(size);
    if (this.#block === this.#blocks.length) this.#blocks.push(Buffer.allocUnsafeSlow(this.blockBytes));
    const out = this.#blocks[this.#block]!.subarray(this.#used, this.#used + size);
    this.#used += size;
    return out;
  };

  /** Everything taken is free again: the caller holds none of it any more. */
  reset(): void {
    this.#block = 0;
    this.#used = 0;
  }
}
