import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { expectAppCenterError, releasesUrl, tokenOf } from './helpers.js';

const { app } = await testApp();
const force = (status: number) =>
  app.inject({
    url: releasesUrl('alice', 'Pocket-Notes'),
    headers: { 'X-API-Token': tokenOf('alice'), prefer: `code=${status}` },
  });

describe('appcenter forced responses', () => {
  it('can be forced to its documented 400, 401 and 404, and to 500 and 503', async () => {
    const res = await force(418);
    expect(res.headers['mockyard-error']).toContain('the statuses it can be forced to are: 400, 401, 404, 500, 503');
    for (const status of [500, 503]) {
      const forced = await force(status);
      expect(forced.statusCode).toBe(status);
      expect(forced.headers['mockyard-simulated']).toBe(`code=${status}`);
      expect(forced.json()).toMatchObject({
        statusCode: status,
        code: expect.any(String),
        message: expect.any(String),
      });
    }
  });

  it('answers each forced status like the natural one: same status, content type and body shape', async () => {
    const natural = {
      400: await app.inject({
        url: `${releasesUrl('alice', 'Pocket-Notes')}?top=0`,
        headers: { 'X-API-Token': tokenOf('alice') },
      }),
      401: await app.inject({ url: releasesUrl('alice', 'Pocket-Notes') }),
      404: await app.inject({ url: releasesUrl('alice', 'Nope'), headers: { 'X-API-Token': tokenOf('alice') } }),
    };
    for (const status of [400, 401, 404]) {
      const forced = await force(status);
      const want = natural[status as 400 | 401 | 404];
      expectAppCenterError(forced, status as 400 | 401 | 404);
      expectAppCenterError(want, status as 400 | 401 | 404);
      expect(forced.headers['content-type']).toBe(want.headers['content-type']);
      const [f, w] = [forced.json(), want.json()];
      expect({ ...f, message: undefined }).toEqual({ ...w, message: undefined });
    }
  });
});
