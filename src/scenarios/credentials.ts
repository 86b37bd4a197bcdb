// Keys and tokens a scenario names for an area: in its requests they are the only ones accepted.
import type { AreaName } from '../platform/area.js';
import type { FixtureStore } from '../platform/data/fixture-store.js';

/** The credentials the store declares for `area`, or null when it declares none (then the configured rules apply). */
export function storeCredentials(store: FixtureStore, area: AreaName): ReadonlySet<string> | null {
  return store.memo(`credentials:${area}`, (s) => {
    const table = s.db
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'mockyard_credentials'")
      .get();
    if (!table) return null;
    const values = s.db.prepare('SELECT value FROM mockyard_credentials WHERE area = ?').pluck().all(area) as string[];
    return values.length > 0 ? new Set(values) : null;
  });
}
