import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULTS, OPTIONS, renderOptionsTable, resolveConfig } from '../../src/config.js';

describe('configuration', () => {
  it('has the documented defaults', () => {
    const config = resolveConfig({}, {});
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 4010,
      seed: 1337,
      scale: 1,
      areaPorts: null,
      dkanMaxLimit: 10000,
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('takes environment variables, and explicit values over them', () => {
    const env = {
      MOCKYARD_PORT: '5000',
      MOCKYARD_CORS_ORIGINS: 'http://a.test, http://b.test',
      MOCKYARD_WATCH: 'true',
    };
    expect(resolveConfig({}, env)).toMatchObject({
      port: 5000,
      corsOrigins: ['http://a.test', 'http://b.test'],
      watch: true,
    });
    expect(resolveConfig({ port: '0' }, env).port).toBe(0);
    expect(resolveConfig({ port: 6000 }, env).port).toBe(6000);
  });

  it('parses ranges and lists', () => {
    expect(resolveConfig({ latency: '50-200' }, {}).latency).toEqual([50, 200]);
    expect(resolveConfig({ latency: '30' }, {}).latency).toEqual([30, 30]);
    expect(resolveConfig({ agcoTokens: 'a,b' }, {}).agcoTokens).toEqual(['a', 'b']);
    expect(resolveConfig({ areaPorts: '4011' }, {}).areaPorts).toBe(4011);
  });

  it.each([
    [{ port: 'abc' }, /port must be a whole number/],
    [{ port: '70000' }, /port must be a whole number from 0 to 65535/],
    [{ logLevel: 'loud' }, /log level must be one of/],
    [{ latency: '200-50' }, /low-high/],
    [{ errorRate: '150' }, /percentage/],
    [{ corsOrigins: 'localhost:3000' }, /cors origin/],
    [{ scale: '0' }, /scale must be/],
    [{ watch: 'maybe' }, /watch must be true or false/],
  ])('rejects %j with a one-line message', (input, message) => {
    expect(() => resolveConfig(input, {})).toThrow(ConfigError);
    expect(() => resolveConfig(input, {})).toThrow(message);
  });

  it('gives the defaults back when handed the defaults, typed (no value goes through text)', () => {
    expect(resolveConfig({ ...DEFAULTS }, {})).toEqual(DEFAULTS);
    expect(resolveConfig({ ...DEFAULTS }, {}).adminToken).toBeNull();
    expect(resolveConfig({ ...DEFAULTS }, {}).dkanCsvDir).toBeNull();
  });

  it('checks typed values by the same rules as their text', () => {
    expect(resolveConfig({ latency: [10, 20], adminToken: 'off', corsOrigins: ['http://a.test'] }, {})).toMatchObject({
      latency: [10, 20],
      adminToken: 'off',
      corsOrigins: ['http://a.test'],
    });
    expect(() => resolveConfig({ port: 1.5 }, {})).toThrow(/port must be a whole number/);
    expect(() => resolveConfig({ latency: [20, 10] }, {})).toThrow(/low-high/);
    expect(() => resolveConfig({ watch: 1 as unknown as boolean }, {})).toThrow(/watch must be true or false/);
    expect(() => resolveConfig({ corsOrigins: ['localhost'] }, {})).toThrow(/cors origin/);
  });

  it('rejects a bad environment value too', () => {
    expect(() => resolveConfig({}, { MOCKYARD_SEED: 'x' })).toThrow(/seed must be a whole number/);
  });

  it('documents every option in the docs/configuration.md table', () => {
    const page = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    expect(
      page,
      'docs/configuration.md option table is stale: regenerate it with `node dist/bundle/cli.js options-table`',
    ).toContain(renderOptionsTable());
    expect(OPTIONS.map((o) => o.key).sort()).toEqual(Object.keys(DEFAULTS).sort());
  });
});
