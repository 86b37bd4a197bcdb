import { describe, expect, it } from 'vitest';
import { contractProblems } from '../helpers/contract.js';

const json = (statusCode: number, body: unknown) => ({
  statusCode,
  headers: { 'content-type': 'application/json; charset=utf-8' },
  body: JSON.stringify(body),
});

describe('contract helper', () => {
  it('accepts a body that matches the operation schema', () => {
    const release = { id: 1, version: '12', short_version: '1.0', enabled: true, uploaded_at: '2025-01-01T00:00:00Z' };
    expect(contractProblems('releases_list', json(200, [release]))).toEqual([]);
  });

  it('reports a missing required field', () => {
    const problems = contractProblems('releases_list', json(200, [{ id: 1 }]));
    expect(problems.join('\n')).toMatch(/required/);
  });

  it('reports an undocumented status and a wrong content type', () => {
    expect(contractProblems('releases_list', json(418, {}))[0]).toMatch(/not documented/);
    const html = { statusCode: 200, headers: { 'content-type': 'text/html' }, body: '<html></html>' };
    expect(contractProblems('releases_list', html)[0]).toMatch(/content type/);
  });

  it('knows every operation of the five contracts', () => {
    for (const op of [
      'downloadItemFile',
      'getItemMetadata',
      'getPopularCars',
      'releases_list',
      'StringDefinitions_GetDefinitions',
      'datastore-datasetindex-query-get',
      'datastore-resource-query-get',
    ]) {
      expect(contractProblems(op, json(999, {})).join('\n')).not.toMatch(/no operation/);
    }
  });
});
