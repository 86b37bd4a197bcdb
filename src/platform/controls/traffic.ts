// Requests and errors per area in fixed time buckets over the last minutes: the dashboard's chart.
// Fed by the journal as requests finish; the clock is injected so tests need no waiting.
import type { AreaName } from '../area.js';

export interface TrafficBucket {
  /** Epoch ms at which the bucket starts. */
  start: number;
  requests: number;
  /** Answers with a 5xx status, or none at all (a dropped connection). */
  errors: number;
  /** Answers with a 4xx status. */
  clientErrors: number;
}

export interface TrafficSnapshot {
  bucketMs: number;
  /** Oldest first; every area has the same bucket starts. */
  areas: Record<string, TrafficBucket[]>;
}

interface Counts {
  requests: Int32Array;
  errors: Int32Array;
  clientErrors: Int32Array;
  /** The bucket index (time / bucketMs) each slot currently holds. */
  slots: Float64Array;
}

export class Traffic {
  #areas = new Map<string, Counts>();

  constructor(
    readonly bucketMs = 10_000,
    readonly buckets = 30,
    private readonly now: () => number = Date.now,
  ) {}

  add(area: AreaName, status: number | null, time = this.now()): void {
    let counts = this.#areas.get(area);
    if (!counts) {
      counts = {
        requests: new Int32Array(this.buckets),
        errors: new Int32Array(this.buckets),
        clientErrors: new Int32Array(this.buckets),
        slots: new Float64Array(this.buckets).fill(-1),
      };
      this.#areas.set(area, counts);
    }
    const index = Math.floor(time / this.bucketMs);
    const slot = index % this.buckets;
    if (counts.slots[slot] !== index) {
      counts.slots[slot] = index;
      counts.requests[slot] = 0;
      counts.errors[slot] = 0;
      counts.clientErrors[slot] = 0;
    }
    counts.requests[slot] = (counts.requests[slot] ?? 0) + 1;
    if (status === null || status >= 500) counts.errors[slot] = (counts.errors[slot] ?? 0) + 1;
    else if (status >= 400) counts.clientErrors[slot] = (counts.clientErrors[slot] ?? 0) + 1;
  }

  snapshot(areas: readonly string[]): TrafficSnapshot {
    const last = Math.floor(this.now() / this.bucketMs);
    const out: Record<string, TrafficBucket[]> = {};
    for (const area of areas) {
      const counts = this.#areas.get(area);
      const series: TrafficBucket[] = [];
      for (let index = last - this.buckets + 1; index <= last; index++) {
        const slot = index % this.buckets;
        const held = counts !== undefined && counts.slots[slot] === index;
        series.push({
          start: index * this.bucketMs,
          requests: held ? (counts.requests[slot] ?? 0) : 0,
          errors: held ? (counts.errors[slot] ?? 0) : 0,
          clientErrors: held ? (counts.clientErrors[slot] ?? 0) : 0,
        });
      }
      out[area] = series;
    }
    return { bucketMs: this.bucketMs, areas: out };
  }

  clear(): void {
    this.#areas.clear();
  }
}
