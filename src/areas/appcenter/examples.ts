// Requests that work with this store's tokens and apps: the dashboard offers them to copy.
import type { AreaExample } from '../../platform/area.js';
import type { FixtureStore } from '../../platform/data/fixture-store.js';
import { catalogData } from './queries.js';

export function appcenterExamples(store: FixtureStore): AreaExample[] {
  const { tokens } = catalogData(store);
  return tokens
    .filter((t) => t.groups.length > 0)
    .slice(0, 2)
    .map((t) => {
      const [owner = '', app = ''] = (t.groups[0] ?? '').split('/');
      const base = `/v0.1/apps/${encodeURIComponent(owner)}/${encodeURIComponent(app)}/releases`;
      return {
        title: `Releases of ${owner}/${app} that ${t.user} may see`,
        method: 'GET' as const,
        path: `${base}?top=5`,
        headers: { 'X-API-Token': t.token },
      };
    });
}
