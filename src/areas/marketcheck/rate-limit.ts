// Per-key, per-second request counting, like MarketCheck's RPS limit.

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Epoch milliseconds when the current window ends. */
  resetAt: number;
  allowed: boolean;
}

export class RateLimiter {
  #second = -1;
  // Only keys seen in the current second are kept: the map is emptied when the window moves on.
  #counts = new Map<string, number>();

  constructor(readonly limit: number) {}

  take(key: string, now: number): RateLimitState {
    const second = Math.floor(now / 1000);
    if (second !== this.#second) {
      this.#second = second;
      this.#counts.clear();
    }
    const used = (this.#counts.get(key) ?? 0) + 1;
    this.#counts.set(key, used);
    return {
      limit: this.limit,
      remaining: Math.max(0, this.limit - used),
      resetAt: (second + 1) * 1000,
      allowed: used <= this.limit,
    };
  }

  /** Keys counted in the current window (for tests and diagnostics). */
  get size(): number {
    return this.#counts.size;
  }

  reset(): void {
    this.#second = -1;
    this.#counts.clear();
  }
}
