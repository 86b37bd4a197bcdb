// Recorded exchanges as a scenario body: which answers become records, and that the body is one mockyard takes.
import { describe, expect, it } from 'vitest';
import { type RecordedExchange, scenarioFromRecording } from '../../src/stubs/to-scenario.js';
import { testApp } from '../helpers/app.js';

const { app } = await testApp();

const exchange = (host: string, path: string, json: unknown, status = 200): RecordedExchange => ({
  method: 'GET',
  host,
  path,
  status,
  json,
  mapping: { request: { method: 'GET', url: path }, response: { status, jsonBody: json } },
});

describe('recorded exchanges as a scenario body', () => {
  it('keeps the real resource indexes, joins pages, and leaves the rest as stubs', async () => {
    const { body, converted } = scenarioFromRecording([
      exchange('data.medicaid.gov', '/api/1/datastore/query/ds/2', { results: [{ a: '1' }, { a: '2' }] }),
      exchange('data.medicaid.gov', '/api/1/datastore/query/ds/2', { results: [{ a: '2' }, { a: '3' }] }),
      // data.cms.gov has its own base path; a row that is not flat cannot be a record.
      exchange('data.cms.gov', '/provider-data/api/1/datastore/query/cms/0', { results: [{ b: 'x' }] }),
      exchange('data.medicaid.gov', '/api/1/datastore/query/nested/0', { results: [{ a: { deep: 1 } }] }),
      exchange('data.medicaid.gov', '/api/1/datastore/query/ds/0', { message: 'gone' }, 404),
      exchange('api.appcenter.ms', '/v0.1/apps/o/a/releases', [{ id: 1 }]),
      exchange('ia800.us.archive.org', '/metadata/item-1', {
        metadata: { title: 'T', n: 5 },
        files: [{ name: '../x' }],
      }),
    ]);
    expect(converted).toEqual({ dkan: 3, archive: 1 });
    expect(body.dkan).toEqual({
      datasets: [
        {
          id: 'ds',
          resources: [
            { columns: ['record'], rows: [] },
            { columns: ['record'], rows: [] },
            { rows: [{ a: '1' }, { a: '2' }, { a: '3' }] },
          ],
        },
        { id: 'cms', resources: [{ rows: [{ b: 'x' }] }] },
      ],
    });
    // Metadata values that are not text are left out; a file name that leads out of the item is dropped.
    expect(body.archive).toEqual({ items: [{ identifier: 'item-1', metadata: { title: 'T' }, files: [] }] });
    expect((body.stubs as unknown[]).length).toBe(3);
    const put = await app.inject({
      method: 'PUT',
      url: '/__mockyard/scenarios/from-recording',
      headers: { 'content-type': 'application/json' },
      payload: body,
    });
    expect(put.statusCode, put.body).toBe(201);
    const rows = await app.inject('/scenarios/from-recording/dkan/datastore/query/ds/2?sort=a%20desc');
    expect(rows.statusCode, rows.body).toBe(200);
    expect(rows.json().results.map((r: { a: string }) => r.a)).toEqual(['3', '2', '1']);
  });
});
