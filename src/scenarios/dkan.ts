// A scenario's DKAN datasets as the loader's sources: cells as text, column names and types as for --dkan-csv-dir.
import { parse } from 'csv-parse/sync';
import { tableDataset, type TableSource } from '../../fixtures/dkan/csv.js';
import type { DatasetSource } from '../../fixtures/dkan/writer.js';
import { ScenarioError, pointer } from './errors.js';
import type { ScenarioBody } from './schema.js';

type Body = NonNullable<ScenarioBody['dkan']>;
type Cell = string | number | boolean | null;

/**
 * Columns of one resource at most. A row's JSON is built in SQL with two arguments per column, and near 500
 * columns SQLite refuses the expression ("Expression tree is too large"); DKAN's own tables stop at MySQL's
 * 4,096 columns, far past what a client's test data needs.
 */
export const MAX_COLUMNS = 400;

/**
 * Resources, and columns of all resources, of one scenario. Each column brings its indexes (a text column also
 * a full-text table), and SQLite reads a database's whole schema when it opens it, in time that grows with the
 * square of its objects: 1,000 columns (about 5,500 objects) open in about 17 ms, 2,000 in 87 ms, 4,000 in
 * 390 ms, on the server's event loop.
 */
export const MAX_RESOURCES = 500;
export const MAX_TOTAL_COLUMNS = 1000;

const cellText = (v: Cell | undefined): string => (v === null || v === undefined ? '' : String(v));

export function dkanRecords(body: Body): { records: DatasetSource[]; counts: Record<string, number> } {
  const at = '/dkan';
  const ids = new Set<string>();
  let rowCount = 0;
  let columnCount = 0;
  const resourceCount = (body.datasets ?? []).reduce((n, ds) => n + ds.resources.length, 0);
  if (resourceCount > MAX_RESOURCES)
    throw new ScenarioError(
      pointer(at, 'datasets'),
      `a scenario has at most ${MAX_RESOURCES} DKAN resources; this one has ${resourceCount}`,
    );
  const records = (body.datasets ?? []).map((ds, i) => {
    const dsAt = pointer(at, 'datasets', i);
    if (ids.has(ds.id)) throw new ScenarioError(pointer(dsAt, 'id'), `dataset "${ds.id}" is listed twice`);
    ids.add(ds.id);
    if (ds.resources.length === 0)
      throw new ScenarioError(pointer(dsAt, 'resources'), 'a dataset needs at least one resource');
    const tables = ds.resources.map((res, r): TableSource => {
      const resAt = pointer(dsAt, 'resources', r);
      if ((res.rows === undefined) === (res.csv === undefined))
        throw new ScenarioError(resAt, 'give exactly one of rows or csv');
      const { header, rows } = resourceTable(res, resAt);
      const columnsAt = pointer(resAt, res.csv !== undefined ? 'csv' : res.columns ? 'columns' : 'rows');
      if (header.length === 0) throw new ScenarioError(resAt, 'a resource needs at least one column');
      if (header.length > MAX_COLUMNS)
        throw new ScenarioError(
          columnsAt,
          `a resource has at most ${MAX_COLUMNS} columns; this one has ${header.length}`,
        );
      columnCount += header.length;
      if (columnCount > MAX_TOTAL_COLUMNS)
        throw new ScenarioError(
          columnsAt,
          `the DKAN resources of a scenario have at most ${MAX_TOTAL_COLUMNS} columns in all; this one reaches ${columnCount}`,
        );
      rowCount += rows.length;
      return { title: res.title ?? `${ds.id} resource ${r}`, key: `scenario:${ds.id}:${r}`, header, rows };
    });
    return tableDataset(ds.id, ds.title ?? ds.id, tables);
  });
  return { records, counts: { datasets: records.length, rows: rowCount } };
}

type ResourceBody = NonNullable<Body['datasets']>[number]['resources'][number];

/** A resource's header and rows as text, from its csv or its rows (objects, or arrays with columns). */
function resourceTable(res: ResourceBody, resAt: string): { header: string[]; rows: string[][] } {
  let header: string[];
  let rows: string[][];
  if (res.csv !== undefined) {
    if (res.columns !== undefined)
      throw new ScenarioError(
        pointer(resAt, 'columns'),
        'columns go with rows; a csv names its columns in its header row',
      );
    let parsed: string[][];
    try {
      parsed = parse(res.csv, { bom: true, skip_empty_lines: true, relax_column_count: true }) as string[][];
    } catch (err) {
      throw new ScenarioError(pointer(resAt, 'csv'), `the CSV text cannot be read: ${(err as Error).message}`);
    }
    header = parsed[0] ?? [];
    rows = parsed.slice(1);
  } else {
    const given = res.rows!;
    header = res.columns ? [...res.columns] : [];
    if (!res.columns) {
      const keys = new Set<string>();
      given.forEach((row, k) => {
        if (Array.isArray(row)) throw new ScenarioError(pointer(resAt, 'rows', k), 'rows given as arrays need columns');
        for (const key of Object.keys(row)) keys.add(key);
      });
      header = [...keys];
    }
    const position = new Map(header.map((h, k) => [h, k]));
    rows = given.map((row, k) => {
      if (Array.isArray(row)) {
        if (row.length > header.length)
          throw new ScenarioError(
            pointer(resAt, 'rows', k),
            `the row has ${row.length} cells but there are ${header.length} columns`,
          );
        return header.map((_, c) => cellText(row[c]));
      }
      for (const key of Object.keys(row)) {
        if (!position.has(key))
          throw new ScenarioError(pointer(resAt, 'rows', k, key), `"${key}" is not one of the columns`);
      }
      return header.map((h) => cellText(row[h]));
    });
  }
  return { header, rows };
}
