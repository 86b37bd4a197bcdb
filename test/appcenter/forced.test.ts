import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { appcenterArea } from '../../src/areas/appcenter/index.js';
import { testApp } from '../helpers/app.js';
import { expectAppCenterError, releasesUrl, tokenOf } from './helpers.js';

const { app, store, config } = await testApp();
const forcer = Fastify();
forcer.get('/force/:status', (request, reply) =>
  appcenterArea.forced.send(request, reply, 'releases_list', Number((request.params as { status: string }).status), { store, config }),
);
await forcer.ready();
afterAll(() => forcer.close());

describe('appcenter forced responses', () => {
  it('documents 400, 401 and 404 for releases_list', () => {
    expect(appcenterArea.forced.statuses).toEqual({ releases_list: [400, 401, 404] });
  });

  it('answers each forced status like the natural one: same status, content type and body shape', async () => {
    const natural = {
      400: await app.inject({ url: `${releasesUrl('alice', 'Pocket-Notes')}?top=0`, headers: { 'X-API-Token': tokenOf('alice') } }),
      401: await app.inject({ url: releasesUrl('alice', 'Pocket-Notes') }),
      404: await app.inject({ url: releasesUrl('alice', 'Nope'), headers: { 'X-API-Token': tokenOf('alice') } }),
    };
    for (const status of appcenterArea.forced.statuses.releases_list!) {
      const forced = await forcer.inject({ url: `/force/${status}` });
      const want = natural[status as 400 | 401 | 404];
      expectAppCenterError(forced, status as 400 | 401 | 404);
      expectAppCenterError(want, status as 400 | 401 | 404);
      expect(forced.headers['content-type']).toBe(want.headers['content-type']);
      const [f, w] = [forced.json(), want.json()];
      expect({ ...f, message: undefined }).toEqual({ ...w, message: undefined });
    }
  });
});
