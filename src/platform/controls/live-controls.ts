// Controls set at run time per area (the dashboard, PUT /__mockyard/controls/{area}): they override the
// server-wide --latency and --error-rate for that area until reset, and can add a standing fault.
import type { AreaName } from '../area.js';
import type { FaultKind } from './prefer.js';

export interface AreaControls {
  /** Added latency in ms, as a [low, high] range drawn per request; null for none. */
  latency: readonly [number, number] | null;
  /** Percent of requests (0-100) answered with a documented error status. */
  errorRate: number;
  /** A fault applied to every request of the area, as `Prefer: fault=` would. */
  fault: FaultKind | null;
}

export interface ServerWideControls {
  latency: readonly [number, number] | null;
  errorRate: number;
}

export class LiveControls {
  #overrides = new Map<AreaName, AreaControls>();
  /** True while any control (server-wide or per area) is in play: the request path checks only this. */
  active: boolean;

  constructor(private readonly serverWide: ServerWideControls) {
    this.active = serverWide.latency !== null || serverWide.errorRate > 0;
  }

  /** What applies to this area now: its override, else the server-wide settings. */
  for(area: AreaName): AreaControls {
    return this.#overrides.get(area) ?? { ...this.serverWide, fault: null };
  }

  isOverridden(area: AreaName): boolean {
    return this.#overrides.has(area);
  }

  set(area: AreaName, controls: AreaControls): void {
    this.#overrides.set(area, controls);
    this.#refresh();
  }

  clear(area?: AreaName): void {
    if (area === undefined) this.#overrides.clear();
    else this.#overrides.delete(area);
    this.#refresh();
  }

  #refresh(): void {
    const inPlay = (c: AreaControls | ServerWideControls) =>
      c.latency !== null || c.errorRate > 0 || ('fault' in c && c.fault !== null);
    this.active = inPlay(this.serverWide) || [...this.#overrides.values()].some(inPlay);
  }
}
