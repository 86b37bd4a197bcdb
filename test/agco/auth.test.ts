import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers/app.js';
import { call } from './helpers.js';

describe('agco bearer auth (any non-empty token by default)', async () => {
  const { app } = await testApp();

  it.each([
    ['missing', {}],
    ['empty', { authorization: '' }],
    ['Bearer without a token', { authorization: 'Bearer' }],
    ['Bearer with only spaces', { authorization: 'Bearer   ' }],
    ['another scheme', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['two tokens', { authorization: 'Bearer a b' }],
  ])('%s -> 401 ApiError with a Bearer challenge', async (_name, headers) => {
    const res = await call(app, { limit: 1 }, headers as Record<string, string>);
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    const body = res.json() as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['DeveloperMessage', 'ErrorCode', 'MoreInfo', 'UserMessage']);
    expect(body.ErrorCode).toBe(401);
    expect(body.UserMessage).toMatch(/Authorization has been denied/);
  });

  it('accepts any non-empty token, with a case-insensitive scheme', async () => {
    for (const authorization of ['Bearer anything', 'bearer x', 'BEARER eyJhbGciOi.abc.def']) {
      const res = await call(app, { limit: 1 }, { authorization });
      expect(res.statusCode).toBe(200);
    }
  });

  it('checks auth before parameters', async () => {
    const res = await call(app, { limit: 0 }, {});
    expect(res.statusCode).toBe(401);
  });
});

describe('agco bearer auth with --agco-tokens', async () => {
  const { app } = await testApp({ agcoTokens: 'alpha,beta' });

  it('accepts only the configured tokens', async () => {
    expect((await call(app, { limit: 1 }, { authorization: 'Bearer alpha' })).statusCode).toBe(200);
    expect((await call(app, { limit: 1 }, { authorization: 'Bearer beta' })).statusCode).toBe(200);
    const res = await call(app, { limit: 1 }, { authorization: 'Bearer gamma' });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ ErrorCode: 401, DeveloperMessage: expect.stringMatching(/not valid/) });
  });

  it('lists the configured tokens in the catalog', async () => {
    const res = await app.inject({ url: '/__mockyard/fixtures' });
    expect((res.json() as { agco: { tokens: string[] } }).agco.tokens).toEqual(['alpha', 'beta']);
  });
});
