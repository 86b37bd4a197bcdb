// The stubs of a running mockyard: the shared mappings (from --mappings, the admin API), recording, and `match`.
import { randomUUID } from 'node:crypto';
import { RegexThread } from './regex-thread.js';
import { performance } from 'node:perf_hooks';
import type { FastifyBaseLogger } from 'fastify';
import { MappingError } from './errors.js';
import { filesRootOf, readMappingDir } from './files.js';
import type { Stub } from './stub.js';
import { Recorder } from './recorder.js';
import type { StubRequest } from './request.js';
import type { Slicing } from './pattern-match.js';
import { StubStore } from './store.js';

export interface StubsOptions {
  /** --mappings DIR: loaded at start and again by POST /__admin/mappings/reset. */
  mappingsDir: string | null;
  /** --record-to DIR. */
  recordTo: string | null;
  adminToken: string | null;
}

export interface Matched {
  stub: Stub;
  /** The store the stub lives in: its scenario state moves there. */
  store: StubStore;
}

/** Work between two turns of the event loop, at most: other clients (health probes) get theirs in between. */
export const SLICE_MS = 8;

/** A `tick` that yields to the event loop once SLICE_MS of work has passed since the last yield (else undefined). */
export function timeSlicer(): () => Promise<void> | undefined {
  let since = performance.now();
  return () => {
    if (performance.now() - since < SLICE_MS) return undefined;
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        since = performance.now();
        resolve();
      }),
    );
  };
}

/** Shared by the shared port and every --area-ports app, like the journal. */
export class Stubs {
  readonly store = new StubStore();
  readonly recorder: Recorder;
  /** Where regular expressions over large bodies run, for every request these stubs match. */
  readonly #regex = new RegexThread();
  readonly filesRoot: string | null;
  /** This server in the Via header of what it forwards: a proxy loop back to it is told apart (answer.ts). */
  readonly via = `1.1 mockyard-${randomUUID().slice(0, 8)}`;

  constructor(readonly options: StubsOptions) {
    this.filesRoot = options.mappingsDir === null ? null : filesRootOf(options.mappingsDir);
    this.recorder = new Recorder(options.recordTo, options.adminToken);
    this.loadDefaults();
  }

  /** Replaces every mapping with the --mappings directory's (none without one). Throws a MappingError naming the file. */
  loadDefaults(log?: FastifyBaseLogger): number {
    const files = this.options.mappingsDir === null ? [] : readMappingDir(this.options.mappingsDir);
    const all = files.flatMap((f) =>
      f.mappings.map((m, i) => ({ m, at: `${f.file}${f.mappings.length > 1 ? `#/mappings/${i}` : ''}` })),
    );
    const check = new StubStore();
    // Parsed into a scratch store first: a bad file leaves the running mappings as they were.
    check.addAll(
      all.map((a) => a.m),
      (i) => all[i]!.at,
    );
    this.store.clear();
    this.store.addAll(all.map((a) => a.m));
    log?.info({ mappings: all.length }, 'stub mappings loaded');
    return all.length;
  }

  /**
   * The one entry point: the stub that answers this request, or undefined (the request goes on to the
   * area unchanged). A scenario's own stubs come first, then the shared ones.
   */
  match(request: StubRequest, scenarioStubs?: StubStore | null): Matched | undefined {
    if (scenarioStubs) {
      const stub = scenarioStubs.match(request);
      if (stub) return { stub, store: scenarioStubs };
    }
    if (this.store.size === 0) return undefined;
    const stub = this.store.match(request);
    return stub ? { stub, store: this.store } : undefined;
  }

  /** A fresh time slice, with these stubs' thread for regular expressions and JSONPath over large bodies. */
  slicing(): Slicing {
    return { tick: timeSlicer(), regex: this.#regex.test, jsonPath: this.#regex.jsonPath };
  }

  /** `match` for a request with a body, yielding the event loop between its patterns (see StubStore.matchSliced). */
  async matchSliced(request: StubRequest, scenarioStubs?: StubStore | null): Promise<Matched | undefined> {
    const slicing = this.slicing();
    if (scenarioStubs) {
      const stub = await scenarioStubs.matchSliced(request, slicing);
      if (stub) return { stub, store: scenarioStubs };
    }
    if (this.store.size === 0) return undefined;
    const stub = await this.store.matchSliced(request, slicing);
    return stub ? { stub, store: this.store } : undefined;
  }

  /** Global reset: mappings back to the --mappings directory's, scenarios to Started, recordings forgotten. */
  reset(): void {
    try {
      this.loadDefaults();
    } catch (err) {
      if (!(err instanceof MappingError)) throw err;
      this.store.clear();
    }
    this.store.resetScenarios();
    this.recorder.reset();
  }
}
