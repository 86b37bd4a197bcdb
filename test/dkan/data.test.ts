// Data: the generated datasets, typed columns returned as strings, stable ids, the catalog and user CSV folders.
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { resolveConfig } from '../../src/config.js';
import { ensureFixtures } from '../../src/server.js';
import { uint32Blob, uint32sOfBlob, uuidFromName } from '../../fixtures/dkan/layout.js';
import { catalog, datasetWith, envelope, query, tableOf, type Row } from './helpers.js';

const { app, store, config } = await testApp();
const datasets = await catalog(app);
const nadac = datasetWith(datasets, 'nadac_per_unit');

describe('generated datasets', () => {
  it('lists every dataset with its resources, row counts and typed columns in the catalog', () => {
    expect(datasets.length).toBeGreaterThanOrEqual(3);
    for (const d of datasets) {
      for (const r of d.resources) {
        const real = store.db
          .prepare(`SELECT count(*) FROM ${tableOf(store, r.distributionId)}`)
          .pluck()
          .get();
        expect(r.rows).toBe(real);
        expect(r.columns.length).toBeGreaterThan(0);
      }
    }
    const types = new Set(datasets.flatMap((d) => d.resources.flatMap((r) => r.columns.map((c) => c.type))));
    expect([...types].sort()).toEqual(['date', 'decimal', 'integer', 'text']);
  });

  it('has a drug-pricing dataset with 100,000 x scale rows and a second resource at index 1', async () => {
    expect(nadac.resources[0]!.rows).toBe(100_000 * config.scale);
    expect(nadac.resources.length).toBeGreaterThanOrEqual(2);
    const body = await envelope(app, `/datastore/query/${nadac.id}/1?limit=1`);
    expect(body.count).toBe(nadac.resources[1]!.rows);
    expect(body.query.resources).toEqual([{ id: nadac.resources[1]!.distributionId, alias: 't' }]);
  });

  it('has a provider directory and a quality-measure dataset', () => {
    expect(datasetWith(datasets, 'hospital_overall_rating').resources[0]!.rows).toBeGreaterThan(1000);
    expect(datasetWith(datasets, 'measure_id').resources[0]!.rows).toBeGreaterThan(1000);
  });

  it('reads a rank BLOB back as the same numbers, at any offset of a shared buffer', () => {
    const values = Uint32Array.from({ length: 1000 }, (_, i) => (i * 2654435761) >>> 0);
    const blob = uint32Blob(values);
    expect([...uint32sOfBlob(Buffer.from(blob))]).toEqual([...values]);
    for (const offset of [1, 2, 3, 4]) {
      const shared = Buffer.alloc(blob.length + 8);
      blob.copy(shared, offset);
      const read = uint32sOfBlob(shared.subarray(offset, offset + blob.length));
      expect([...read]).toEqual([...values]);
    }
  });

  it('derives stable UUID-shaped ids from names, not from the seed', () => {
    for (const d of datasets) {
      expect(d.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      d.resources.forEach((r) => expect(r.distributionId).toMatch(/^[0-9a-f]{8}-/));
    }
    expect(nadac.id).toBe(uuidFromName('dataset:nadac-2025'));
    expect(nadac.resources[0]!.distributionId).toBe(uuidFromName('nadac-2025:0'));
  });

  it('returns every value as a string (empty for missing), numbers formatted as stored decimals', async () => {
    const body = await envelope(app, `/datastore/query/${nadac.id}/0?limit=200`);
    const rows = body.results as Row[];
    expect(rows).toHaveLength(200);
    const raw = store.db
      .prepare(`SELECT * FROM ${tableOf(store, nadac.resources[0]!.distributionId)} ORDER BY record_number LIMIT 200`)
      .all() as Record<string, unknown>[];
    rows.forEach((row, i) => {
      for (const v of Object.values(row)) expect(typeof v).toBe('string');
      expect(Number(row.nadac_per_unit)).toBeCloseTo(raw[i]!.nadac_per_unit as number, 5);
      expect(row.nadac_per_unit).toMatch(/^\d+\.\d{5}$/);
      expect(row.corresponding_generic_drug_nadac_per_unit).toEqual(
        raw[i]!.corresponding_generic_drug_nadac_per_unit === null ? '' : expect.stringMatching(/^\d+\.\d{5}$/),
      );
      expect(row.effective_date).toMatch(/^2025-\d{2}-\d{2}$/);
    });
  });

  it('describes columns in schema keyed by distribution id, with the original header as description', async () => {
    const body = await envelope(app, `/datastore/query/${nadac.id}/0?limit=1`);
    const fields = body.schema![nadac.resources[0]!.distributionId]!.fields;
    expect(Object.keys(fields)).toEqual(nadac.resources[0]!.columns.map((c) => c.name));
    expect(fields.nadac_per_unit).toMatchObject({
      type: 'numeric',
      mysql_type: 'decimal',
      description: 'NADAC Per Unit',
    });
    expect(fields.effective_date).toMatchObject({ type: 'date' });
  });

  it('serves the same resource by distribution id', async () => {
    const a = await query(app, `/datastore/query/${nadac.id}/0?limit=3&offset=7`);
    const b = await query(app, `/datastore/query/${nadac.resources[0]!.distributionId}?limit=3&offset=7`);
    expect(b.body).toBe(a.body);
  });
});

describe('user CSV folder', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dkan-csv-'));
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'dkan-data-'));
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });
  writeFileSync(
    path.join(dir, 'State Payments.csv'),
    '\ufeffState Code,Year,Amount ($),Paid On,Report Date,Note\n' +
      'AL,2024,10.50,2024-03-01,03/15/2024,"first, with comma"\n' +
      'TX,2023,9.25,2023-12-31,01/02/2024,\n' +
      'CA,2024,100,2024-01-15,02/01/2024,"quoted ""note"""\n' +
      'NY,,7.125,,,\n',
  );
  writeFileSync(path.join(dir, 'ignored.txt'), 'not a csv');
  const cfg = resolveConfig({ dataDir, dkanCsvDir: dir, logLevel: 'silent' });
  await ensureFixtures(cfg, () => {});
  const { app: csvApp } = await testApp({ dataDir, dkanCsvDir: dir });
  const all = await catalog(csvApp);

  it('turns each CSV file into a dataset with an id from the file name and inferred column types', () => {
    const d = all.find((x) => x.id === 'state-payments');
    expect(d).toBeDefined();
    expect(d!.resources[0]!.rows).toBe(4);
    expect(d!.resources[0]!.distributionId).toBe(uuidFromName('csv:State Payments.csv'));
    expect(d!.resources[0]!.columns).toEqual([
      { name: 'state_code', type: 'text' },
      { name: 'year', type: 'integer' },
      { name: 'amount', type: 'decimal' },
      { name: 'paid_on', type: 'date' },
      { name: 'report_date', type: 'date' },
      { name: 'note', type: 'text' },
    ]);
    expect(all.some((x) => x.id.startsWith('ignored'))).toBe(false);
  });

  it('returns the CSV values and compares by the inferred types', async () => {
    const body = await envelope(csvApp, '/datastore/query/state-payments/0?sort=amount%20desc');
    expect(body.results).toEqual([
      {
        state_code: 'CA',
        year: '2024',
        amount: '100.000',
        paid_on: '2024-01-15',
        report_date: '02/01/2024',
        note: 'quoted "note"',
      },
      {
        state_code: 'AL',
        year: '2024',
        amount: '10.500',
        paid_on: '2024-03-01',
        report_date: '03/15/2024',
        note: 'first, with comma',
      },
      { state_code: 'TX', year: '2023', amount: '9.250', paid_on: '2023-12-31', report_date: '01/02/2024', note: '' },
      { state_code: 'NY', year: '', amount: '7.125', paid_on: '', report_date: '', note: '' },
    ]);
    const later = await envelope(
      csvApp,
      `/datastore/query/state-payments/0?conditions=${encodeURIComponent(JSON.stringify([{ property: 'report_date', value: '01/31/2024', operator: '>' }]))}`,
    );
    expect((later.results as Row[]).map((r) => r.state_code).sort()).toEqual(['AL', 'CA']);
    const schema = body.schema!;
    expect(Object.values(schema)[0]!.fields.amount!.description).toBe('Amount ($)');
  });

  it('keeps the generated datasets next to the user ones', () => {
    expect(all.length).toBe(datasets.length + 1);
  });
});
