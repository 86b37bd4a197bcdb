// Requests that work on this store's datasets: the dashboard offers them to copy.
import type { AreaExample } from '../../platform/area.js';
import type { FixtureStore } from '../../platform/data/fixture-store.js';
import { catalogOf } from './datasets.js';

export function dkanExamples(store: FixtureStore): AreaExample[] {
  return catalogOf(store)
    .datasets.slice(0, 2)
    .flatMap((d) => {
      const resource = d.resources[0];
      if (!resource) return [];
      const column = resource.columns[0];
      const base = `/datastore/query/${d.id}/${resource.index}`;
      const out: AreaExample[] = [{ title: `First rows of ${d.id}`, method: 'GET', path: `${base}?limit=5` }];
      if (column) {
        out.push({
          title: `Sorted by ${column.name}`,
          method: 'GET',
          path: `${base}?sorts[0][property]=${encodeURIComponent(column.name)}&sorts[0][order]=desc&limit=5`,
        });
      }
      out.push({
        title: `By distribution ${resource.distributionId}`,
        method: 'GET',
        path: `/datastore/query/${resource.distributionId}?limit=5`,
      });
      return out;
    });
}
