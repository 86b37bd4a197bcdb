// Bounds checked before routing answer in each area's own error shape.
import { describe, expect, it } from 'vitest';
import { MAX_QUERY_PARAMETERS, MAX_URL_LENGTH } from '../../src/platform/http/limits.js';
import { testApp } from '../helpers/app.js';

const { app } = await testApp();

const areas = [
  {
    prefix: '/archive',
    path: '/archive/metadata/x',
    type: /^text\/html/,
    shape: (body: string) => expect(body).toMatch(/<title>4\d\d /),
  },
  {
    prefix: '/marketcheck',
    path: '/marketcheck/popular/cars',
    type: /^application\/json/,
    shape: (body: string) =>
      expect(JSON.parse(body)).toMatchObject({ code: expect.any(Number), message: expect.any(String) }),
  },
  {
    prefix: '/appcenter',
    path: '/appcenter/v0.1/apps/o/a/releases',
    type: /^application\/json/,
    shape: (body: string) =>
      expect(JSON.parse(body)).toMatchObject({
        statusCode: expect.any(Number),
        code: expect.any(String),
        message: expect.any(String),
      }),
  },
  {
    prefix: '/agco',
    path: '/agco/api/v2/StringDefinitions',
    type: /^application\/json/,
    shape: (body: string) =>
      expect(Object.keys(JSON.parse(body)).sort()).toEqual([
        'DeveloperMessage',
        'ErrorCode',
        'MoreInfo',
        'UserMessage',
      ]),
  },
  {
    prefix: '/dkan',
    path: '/dkan/datastore/query/x/0',
    type: /^application\/json/,
    shape: (body: string) =>
      expect(JSON.parse(body)).toMatchObject({ message: expect.any(String), status: expect.any(Number) }),
  },
];

describe.each(areas)('request bounds under $prefix', ({ path, type, shape }) => {
  it(`answers 414 for a URL over ${MAX_URL_LENGTH} characters`, async () => {
    const res = await app.inject(`${path}?x=${'a'.repeat(MAX_URL_LENGTH)}`);
    expect(res.statusCode).toBe(414);
    expect(res.headers['content-type']).toMatch(type);
    shape(res.body);
  });

  it(`answers 400 for more than ${MAX_QUERY_PARAMETERS} query parameters`, async () => {
    const query = Array.from({ length: MAX_QUERY_PARAMETERS + 1 }, (_, i) => `p${i}=1`).join('&');
    const res = await app.inject(`${path}?${query}`);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(type);
    shape(res.body);
  });

  it('answers 400 for malformed percent-encoding in the path', async () => {
    const res = await app.inject(`${path}%E0%A4%A`);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(type);
    shape(res.body);
  });
});

describe('outside the areas', () => {
  it('answers JSON', async () => {
    const res = await app.inject(`/nowhere?x=${'a'.repeat(MAX_URL_LENGTH)}`);
    expect(res.statusCode).toBe(414);
    expect(res.json()).toMatchObject({ statusCode: 414 });
  });
});
