// Requests that work on this store's datasets: the dashboard offers them to copy.
import type { AreaDocs, AreaExample } from '../../platform/area.js';
import type { FixtureStore } from '../../platform/data/fixture-store.js';
import { catalogOf } from './datasets.js';
import { OPS } from './routes.js';
import { CATALOG_OPS } from './catalog-routes.js';

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

/** What /docs prefills: the first dataset's first resource, sorted by one of its real columns. */
export function dkanDocs(store: FixtureStore): AreaDocs {
  const dataset = catalogOf(store).datasets.find((d) => d.resources[0]);
  const resource = dataset?.resources[0];
  if (!dataset || !resource) return { operations: {} };
  const column = resource.columns[0]?.name ?? 'record_number';
  // Arrays of objects: an empty example keeps Swagger UI from sending a sample item made from the schema.
  const empty = { properties: [], groupings: [], joins: [], conditions: undefined };
  const sort = { property: column, order: 'desc' };
  const query = { ...empty, limit: 5, sorts: [sort] };
  const download = { ...query, format: 'csv' };
  const multi = { resources: [{ id: resource.distributionId, alias: 't' }] };
  const multiSorts = [{ ...sort, resource: 't' }];
  const byIndex = { datasetId: dataset.id, index: resource.index };
  const byDistribution = { distributionId: resource.distributionId };
  const body = { limit: 5, sorts: [sort] };
  const sql = `[SELECT * FROM ${resource.distributionId}][ORDER BY ${column} DESC][LIMIT 5];`;
  return {
    operations: {
      [OPS.multiGet]: { parameters: { ...query, ...multi, sorts: multiSorts } },
      [OPS.multiPost]: { body: { ...body, ...multi, sorts: multiSorts } },
      [OPS.multiDownloadGet]: { parameters: { ...download, ...multi, sorts: multiSorts } },
      [OPS.multiDownloadPost]: { body: { ...body, ...multi, sorts: multiSorts, format: 'csv' } },
      [OPS.distributionGet]: { parameters: { ...query, ...byDistribution } },
      [OPS.distributionPost]: { parameters: byDistribution, body },
      [OPS.distributionDownloadGet]: { parameters: { ...download, ...byDistribution } },
      [OPS.distributionDownloadPost]: { parameters: byDistribution, body: { ...body, format: 'csv' } },
      [OPS.datasetIndexGet]: { parameters: { ...query, ...byIndex } },
      [OPS.datasetIndexPost]: { parameters: byIndex, body },
      [OPS.datasetIndexDownloadGet]: { parameters: { ...download, ...byIndex } },
      [OPS.datasetIndexDownloadPost]: { parameters: byIndex, body: { ...body, format: 'csv' } },
      [CATALOG_OPS.metastoreList]: { parameters: { schemaId: 'dataset' } },
      [CATALOG_OPS.metastoreItem]: { parameters: { schemaId: 'dataset', identifier: dataset.id } },
      [CATALOG_OPS.search]: { parameters: { page: '1', 'page-size': '10' } },
      [CATALOG_OPS.sqlGet]: { parameters: { query: sql } },
      [CATALOG_OPS.sqlPost]: { body: { query: sql } },
      [CATALOG_OPS.importSummary]: { parameters: { identifier: resource.distributionId } },
    },
  };
}
