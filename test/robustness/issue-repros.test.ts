// Single requests an attack on mockyard found to misbehave, each pinned by the request that showed it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { enc, errorShapeProblem, loadCatalog } from './fuzz-lib.js';
import { rawRequest } from './socket.js';

const { app, store } = await testApp();
const cat = await loadCatalog(app, store);
const AUTH = { authorization: `Bearer ${cat.agco.tokens[0]}` };

describe('AGCO limit that overflows to Infinity', () => {
  it.each(['1e309', '1e400', '9'.repeat(310), '1e308'])("limit=%s gets AGCO's 400, as 1e308 does", async (limit) => {
    const res = await app.inject({ url: `/agco/api/v2/StringDefinitions?limit=${limit}`, headers: AUTH });
    expect(res.statusCode).toBe(400);
    expect(errorShapeProblem('agco', res)).toBeUndefined();
    expect(res.body).not.toMatch(/Sqlite|datatype/i);
  });
});

describe('DKAN pattern operators with a column reference as the value', () => {
  const dk = cat.dkan[0]!;
  const [a, b] = dk.columns;
  it.each(['like', 'contains', 'starts with'])(
    '%s answers DKAN\'s 400 instead of comparing "[object Object]"',
    async (operator) => {
      const conditions = JSON.stringify([{ property: a, operator, value: { resource: 't', property: b } }]);
      const res = await app.inject(
        `/dkan/datastore/query/${dk.datasetId}/${dk.index}?limit=1&conditions=${enc(conditions)}`,
      );
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({
        message: 'JSON Schema validation failed.',
        status: 400,
        data: { keyword: 'type', pointer: 'conditions/0/value' },
      });
      expect(errorShapeProblem('dkan', res)).toBeUndefined();
    },
  );

  it('the bracket form too', async () => {
    const res = await app.inject(
      `/dkan/datastore/query/${dk.datasetId}/${dk.index}?conditions[0][property]=${enc(a!)}&conditions[0][operator]=like&conditions[0][value][property]=${enc(b!)}`,
    );
    expect(res.statusCode).toBe(400);
  });

  it('comparison operators still take a column reference', async () => {
    const conditions = JSON.stringify([{ property: a, operator: '=', value: { resource: 't', property: a } }]);
    const res = await app.inject(
      `/dkan/datastore/query/${dk.datasetId}/${dk.index}?limit=1&conditions=${enc(conditions)}`,
    );
    expect(res.statusCode).toBe(200);
  });
});

describe('archive download: If-None-Match with Cache-Control: no-cache (what fetch() sends)', () => {
  it('gets 304, as nginx answers', async () => {
    const item = cat.archive.find((i) => i.status === 'ok')!;
    const url = `/archive/download/${item.identifier}/${encodeURIComponent(item.files[0]!)}`;
    const first = await app.inject(url);
    expect(first.statusCode).toBe(200);
    const etag = first.headers.etag as string;
    for (const headers of [
      { 'if-none-match': etag, 'cache-control': 'no-cache' },
      { 'if-none-match': etag, 'cache-control': 'max-age=0', pragma: 'no-cache' },
    ]) {
      const res = await app.inject({ url, headers });
      expect(res.statusCode).toBe(304);
      expect(res.headers.etag).toBe(etag);
      expect(res.body).toBe('');
    }
  });
});

describe("requests Node's HTTP parser refuses", () => {
  let port = 0;
  beforeAll(async () => {
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as { port: number }).port;
  });
  afterAll(() => app.close());

  const item = cat.archive.find((i) => i.status === 'ok')!;
  const bad: [string, Buffer][] = [
    ['a control byte', Buffer.from(`/archive/metadata/${item.identifier}\x01x`, 'latin1')],
    [
      'a byte >= 0x80',
      Buffer.concat([Buffer.from(`/archive/download/${item.identifier}/`), Buffer.from([0xff, 0xfe])]),
    ],
  ];
  it.each(bad)("on archive routes: the archive's HTML 400 page for %s", async (_, target) => {
    const res = await rawRequest(port, target);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('<title>400 Bad Request</title>');
  });

  it('a raw space in the target: the archive page too', async () => {
    const res = await rawRequest(port, `/archive/metadata/${item.identifier} x`);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
  });

  it("in DKAN: DKAN's JSON error shape", async () => {
    const res = await rawRequest(port, Buffer.from('/dkan/datastore/query/x/0?\x01', 'latin1'));
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ status: 400 });
  });
});
