// mockyard-hint texts for DKAN's 404 answers (it has no auth on the datastore query routes).
import type { FastifyRequest } from 'fastify';

export function dkanHint(request: FastifyRequest, status: number): string | undefined {
  if (status !== 404) return undefined;
  if (/\/datastore\/query\//.test(request.url)) {
    return 'No dataset, resource index or distribution by that id (ids are case-sensitive); datasets with their distributions are listed at /__mockyard/fixtures under dkan.datasets.';
  }
  return 'The DKAN area serves the datastore (query, sql, imports), the metastore and search of https://data.medicaid.gov/api/1 below /dkan; /docs lists every path.';
}
