// Shared setup for the DKAN suites: the app as production builds it, dataset ids from the catalog, raw table reads.
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { expectContract } from '../helpers/contract.js';
import type { FixtureStore } from '../../src/platform/data/fixture-store.js';

export const OP_INDEX = 'datastore-datasetindex-query-get';
export const OP_DIST = 'datastore-resource-query-get';

export interface CatalogResource {
  index: number;
  distributionId: string;
  rows: number;
  columns: { name: string; type: string }[];
}
export interface CatalogDataset {
  id: string;
  resources: CatalogResource[];
}

export type Row = Record<string, string>;
export interface Envelope {
  results?: (Row | string[])[];
  count?: number;
  schema?: Record<string, { fields: Record<string, { type: string; description: string }>; 'primary key'?: string[] }>;
  query: Record<string, unknown>;
}

export async function catalog(app: FastifyInstance): Promise<CatalogDataset[]> {
  const res = await app.inject('/__mockyard/fixtures');
  return (res.json() as { dkan: { datasets: CatalogDataset[] } }).dkan.datasets;
}

/** Finds a dataset by one of its column names, so tests do not hard-code generated ids. */
export function datasetWith(datasets: CatalogDataset[], column: string): CatalogDataset {
  const d = datasets.find((x) => x.resources[0]?.columns.some((c) => c.name === column));
  if (!d) throw new Error(`no dataset with column ${column}`);
  return d;
}

/** GET under /dkan; checks the response against the contract of the operation the path addresses. */
export async function query(
  app: FastifyInstance,
  path: string,
  expectStatus = 200,
): Promise<Awaited<ReturnType<FastifyInstance['inject']>>> {
  const res = await app.inject(`/dkan${path}`);
  const op = /^\/datastore\/query\/[^/?]+\/[^/?]+/.test(path) ? OP_INDEX : OP_DIST;
  expectContract(op, res);
  expect(res.statusCode, res.body.slice(0, 500)).toBe(expectStatus);
  return res;
}

export async function envelope(app: FastifyInstance, path: string): Promise<Envelope> {
  return (await query(app, path)).json() as Envelope;
}

export function tableOf(store: FixtureStore, distributionId: string): string {
  return store.db
    .prepare('SELECT table_name FROM dkan_resources WHERE distribution_id = ?')
    .pluck()
    .get(distributionId) as string;
}

export const enc = encodeURIComponent;
/** Bracket-form condition parameters, as DKAN's own clients send them. */
export function bracket(
  i: number,
  property: string,
  value: string | string[],
  operator?: string,
  prefix = 'conditions',
): string {
  const v = Array.isArray(value)
    ? value.map((x, j) => `${prefix}[${i}][value][${j}]=${enc(x)}`).join('&')
    : `${prefix}[${i}][value]=${enc(value)}`;
  return `${prefix}[${i}][property]=${property}&${v}${operator ? `&${prefix}[${i}][operator]=${enc(operator)}` : ''}`;
}

/** PHP's fputcsv, as DKAN writes CSV rows: a field with a comma, quote, backslash or white space is quoted. */
export const fputcsv = (cells: string[]): string =>
  cells.map((c) => (/[,"\\\s]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join(',');
