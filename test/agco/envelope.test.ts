import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { page, tsText, tsValue } from './helpers.js';

describe('agco envelope, paging and modifiedAfterTimestamp', async () => {
  const { app, store } = await testApp();
  const total = store.db.prepare('SELECT count(*) FROM agco_definitions').pluck().get() as number;

  it('wraps definitions in { Entities, Metadata } with PascalCase fields and a default limit of 10', async () => {
    const body = await page(app);
    expect(Object.keys(body)).toEqual(['Entities', 'Metadata']);
    expect(body.Metadata).toEqual({ TotalCount: total, Limit: 10, Offset: 0 });
    expect(body.Entities).toHaveLength(10);
    for (const d of body.Entities) {
      expect(Object.keys(d)).toEqual([
        'Id',
        'DescriptionForTranslator',
        'DoNotTranslate',
        'ParameterCount',
        'Timestamp',
      ]);
    }
  });

  it('returns the fields as stored, Timestamp as base64 of the 8-byte row version', async () => {
    const body = await page(app, { limit: 25 });
    const get = store.db.prepare(
      'SELECT id, description, do_not_translate, parameter_count, ts FROM agco_definitions WHERE id = ?',
    );
    for (const d of body.Entities) {
      const row = get.get(d.Id) as {
        id: string;
        description: string;
        do_not_translate: number;
        parameter_count: number;
        ts: number;
      };
      expect(d).toEqual({
        Id: row.id,
        DescriptionForTranslator: row.description,
        DoNotTranslate: row.do_not_translate === 1,
        ParameterCount: row.parameter_count,
        Timestamp: tsText(row.ts),
      });
    }
  });

  it('orders by Timestamp ascending and honours limit', async () => {
    const body = await page(app, { limit: 57 });
    expect(body.Entities).toHaveLength(57);
    expect(body.Metadata.Limit).toBe(57);
    const values = body.Entities.map((d) => tsValue(d.Timestamp));
    for (let i = 1; i < values.length; i++) expect(values[i]! > values[i - 1]!).toBe(true);
    const smallest = store.db.prepare('SELECT min(ts) FROM agco_definitions').pluck().get() as number;
    expect(values[0]).toBe(BigInt(smallest));
  });

  it('modifiedAfterTimestamp returns only later definitions, and TotalCount counts them', async () => {
    const all = store.db.prepare('SELECT ts FROM agco_definitions ORDER BY ts').pluck().all() as number[];
    const pivot = all[Math.floor(all.length / 3)]!;
    const body = await page(app, { modifiedAfterTimestamp: tsText(pivot), limit: 20 });
    expect(body.Metadata.TotalCount).toBe(all.filter((t) => t > pivot).length);
    for (const d of body.Entities) expect(tsValue(d.Timestamp) > BigInt(pivot)).toBe(true);
    expect(tsValue(body.Entities[0]!.Timestamp)).toBe(BigInt(all.find((t) => t > pivot)!));
  });

  it('accepts a timestamp between two row versions and one beyond every row version', async () => {
    const body = await page(app, { modifiedAfterTimestamp: tsText(0), limit: 1 });
    expect(body.Metadata.TotalCount).toBe(total);
    const none = await page(app, { modifiedAfterTimestamp: '//////////8=' });
    expect(none).toEqual({ Entities: [], Metadata: { TotalCount: 0, Limit: 10, Offset: 0 } });
  });

  it('pages through every definition exactly once by passing the last Timestamp on', async () => {
    const seen = new Set<string>();
    let after = tsText(0);
    for (let guard = 0; guard < 20; guard++) {
      const body = await page(app, { modifiedAfterTimestamp: after, limit: 1000 });
      for (const d of body.Entities) seen.add(d.Id);
      if (body.Entities.length < 1000) break;
      after = body.Entities.at(-1)!.Timestamp;
    }
    expect(seen.size).toBe(total);
  });
});
