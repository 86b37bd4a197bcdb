// Watch mode: rebuild the fixture database when its sources change and swap it into the running store.
import { watch, type FSWatcher } from 'node:fs';
import { FixtureStore } from './fixture-store.js';
import type { Stores } from './stores.js';
import { filesCleanup } from './rebuild.js';

export interface WatchLog {
  info(obj: object, message: string): void;
  error(obj: object, message: string): void;
}

export interface FixtureWatcherOptions {
  /** Folders whose changes trigger a rebuild (recursively). */
  dirs: readonly string[];
  /** Builds the database if the sources changed; `built: false` means nothing to swap. */
  rebuild(): Promise<{ built: boolean; fingerprint: string }>;
  stores: Stores;
  dataDir: string;
  log: WatchLog;
  /** Editors save in bursts; wait this long after the last event. */
  debounceMs?: number;
}

export interface FixtureWatcher {
  close(): void;
  /** Resolves once no rebuild is pending or running (for tests and orderly shutdown). */
  idle(): Promise<void>;
}

/**
 * Requests keep being served throughout: the new database is built next to the old one and
 * swapped in by `stores.swap()`; a request that already holds the old store finishes with it, and
 * the old store's caches go with it.
 */
export function watchFixtures(opts: FixtureWatcherOptions): FixtureWatcher {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let closed = false;

  const rebuild = async (): Promise<void> => {
    try {
      const result = await opts.rebuild();
      if (result.built && !closed) {
        const next = FixtureStore.open(opts.dataDir, opts.stores.current.generation + 1);
        // The old generation's files go when the last request reading them is done.
        opts.stores.swap(next, filesCleanup(opts.stores.current.filesDir, next.filesDir));
        opts.log.info(
          { fingerprint: result.fingerprint, generation: next.generation },
          'fixtures rebuilt and swapped in',
        );
      }
    } catch (err) {
      opts.log.error({ err }, 'fixture rebuild failed; still serving the previous data');
    }
  };

  const run = (): void => {
    timer = undefined;
    if (running) {
      // A change during a build: build once more afterwards, with the newest sources.
      again = true;
      return;
    }
    running = rebuild().finally(() => {
      running = undefined;
      if (again && !closed) {
        again = false;
        run();
      }
    });
  };

  const watchers: FSWatcher[] = opts.dirs.map((dir) =>
    watch(dir, { recursive: true }, () => {
      if (closed) return;
      clearTimeout(timer);
      timer = setTimeout(run, opts.debounceMs ?? 150);
    }),
  );

  return {
    close() {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
      for (const w of watchers) w.close();
    },
    async idle() {
      while (timer !== undefined || running !== undefined) {
        if (running) await running;
        else await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
  };
}
