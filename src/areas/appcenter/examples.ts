// Requests that work with this store's tokens and apps: the dashboard offers them to copy.
import type { AreaDocs, AreaExample } from '../../platform/area.js';
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

/** What /docs prefills: the first token that sees an app, and that app and group. */
export function appcenterDocs(store: FixtureStore): AreaDocs {
  const member = catalogData(store).tokens.find((t) => t.groups.length > 0);
  if (!member) return { operations: {} };
  const [owner_name = '', app_name = '', distribution_group_name = ''] = (member.groups[0] ?? '').split('/');
  // The token goes through the preauthorized APIToken scheme; as a parameter too it would be sent twice.
  const app = { owner_name, app_name };
  const group = { ...app, distribution_group_name };
  return {
    operations: {
      apps_get: { parameters: app },
      distributionGroups_list: { parameters: app },
      distributionGroups_get: { parameters: group },
      distributionGroups_listUsers: { parameters: group },
      releases_listByDistributionGroup: { parameters: group },
      releases_listLatest: { parameters: app },
      releases_getLatestByUser: { parameters: { ...app, release_id: 'latest' } },
      releases_list: { parameters: { ...app, top: 5 } },
    },
    credentials: { APIToken: member.token },
  };
}
