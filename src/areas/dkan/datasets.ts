// The datasets, resources and columns in the fixture database, read once per store.
import { displaySql, quoteIdent, type DkanColumnDef, type DkanColumnType } from '../../../fixtures/dkan/layout.js';
import type { DatasetMetadata } from '../../../fixtures/dkan/writer.js';
import type { FixtureStore } from '../../platform/data/fixture-store.js';

export interface Column extends DkanColumnDef {
  /** SQL giving the value as DKAN returns it: text, '' for empty. */
  display: string;
  /** The column, quoted for SQL. */
  ident: string;
}

export interface Resource {
  datasetId: string;
  index: number;
  distributionId: string;
  title: string;
  table: string;
  rows: number;
  columns: Column[];
  byName: Map<string, Column>;
}

export interface Catalog {
  datasets: { id: string; title: string; metadata: DatasetMetadata; resources: Resource[] }[];
  byDataset: Map<string, Resource[]>;
  byDistribution: Map<string, Resource>;
}

/** record_number: hidden unless rowIds=true, but usable in conditions and sorts. */
export const RECORD_NUMBER: Column = {
  name: 'record_number',
  type: 'integer',
  description: '',
  ident: 'record_number',
  display: 'CAST(record_number AS TEXT)',
};

function load(store: FixtureStore): Catalog {
  const db = store.db;
  const datasets = db.prepare('SELECT id, title, metadata FROM dkan_datasets ORDER BY position').all() as {
    id: string;
    title: string;
    metadata: string | null;
  }[];
  const resources = db
    .prepare(
      'SELECT distribution_id, dataset_id, idx, title, table_name, row_count FROM dkan_resources ORDER BY dataset_id, idx',
    )
    .all() as {
    distribution_id: string;
    dataset_id: string;
    idx: number;
    title: string;
    table_name: string;
    row_count: number;
  }[];
  const columns = db
    .prepare(
      'SELECT distribution_id, name, type, description, decimals, date_format FROM dkan_columns ORDER BY distribution_id, position',
    )
    .all() as {
    distribution_id: string;
    name: string;
    type: DkanColumnType;
    description: string;
    decimals: number | null;
    date_format: string | null;
  }[];

  const byDistribution = new Map<string, Resource>();
  for (const r of resources) {
    byDistribution.set(r.distribution_id, {
      datasetId: r.dataset_id,
      index: r.idx,
      distributionId: r.distribution_id,
      title: r.title,
      table: r.table_name,
      rows: r.row_count,
      columns: [],
      byName: new Map(),
    });
  }
  for (const c of columns) {
    const res = byDistribution.get(c.distribution_id);
    if (!res) continue;
    const ident = quoteIdent(c.name);
    const col: Column = {
      name: c.name,
      type: c.type,
      description: c.description,
      ...(c.decimals !== null ? { decimals: c.decimals } : {}),
      ...(c.date_format ? { dateFormat: c.date_format as 'iso' | 'mdy' } : {}),
      ident,
      display: displaySql(ident, c.type, c.decimals, c.date_format),
    };
    res.columns.push(col);
    res.byName.set(c.name, col);
  }
  const byDataset = new Map<string, Resource[]>();
  for (const res of byDistribution.values()) {
    const list = byDataset.get(res.datasetId) ?? [];
    list[res.index] = res;
    byDataset.set(res.datasetId, list);
  }
  return {
    datasets: datasets.map((d) => ({
      id: d.id,
      title: d.title,
      metadata: d.metadata ? (JSON.parse(d.metadata) as DatasetMetadata) : {},
      resources: byDataset.get(d.id) ?? [],
    })),
    byDataset,
    byDistribution,
  };
}

export function catalogOf(store: FixtureStore): Catalog {
  return store.memo('dkan:catalog', load);
}

export function resourceAt(store: FixtureStore, datasetId: string, index: string): Resource | undefined {
  if (!/^\d{1,9}$/.test(index)) return undefined;
  return catalogOf(store).byDataset.get(datasetId)?.[Number(index)];
}

export function resourceById(store: FixtureStore, distributionId: string): Resource | undefined {
  return catalogOf(store).byDistribution.get(distributionId);
}
