// Log lines: one per request on a terminal, --quiet, and credentials masked by the journal's rule.
import { Writable } from 'node:stream';
import Fastify, { LogController } from 'fastify';
import { describe, expect, it } from 'vitest';
import { AREAS } from '../../src/areas/index.js';
import { resolveConfig } from '../../src/config.js';
import { maskedQuery, maskHeaders, maskUrl } from '../../src/platform/controls/journal.js';
import { isSecretName } from '../../src/platform/controls/secrets.js';
import { installRequestLog, requestSerializer } from '../../src/platform/http/request-log.js';
import { areaResolver } from '../../src/platform/http/limits.js';

async function logged(
  options: { quiet?: boolean; terminal: boolean; logLevel?: string },
  url: string,
): Promise<string[]> {
  const config = resolveConfig(
    { quiet: options.quiet ?? false, logLevel: (options.logLevel ?? 'info') as 'info', adminToken: 'admin-secret' },
    {},
  );
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  const app = Fastify({
    logger: { level: config.logLevel, stream, serializers: { req: requestSerializer(config) } },
    logController: new LogController({ disableRequestLogging: true }),
  });
  installRequestLog(app, config, { areaOf: areaResolver(AREAS), terminal: options.terminal });
  app.get('/marketcheck/popular/cars', async () => []);
  // Any line that carries the request (as Fastify's own request logging does) goes through the serializer.
  app.get('/boom', async (request) => {
    request.log.error({ req: request }, 'failed');
    return {};
  });
  await app.inject({ url });
  await app.close();
  return lines
    .map((l) => JSON.parse(l) as { msg: string; url?: string; req?: { url: string } })
    .map((l) => `${l.msg} ${l.url ?? ''} ${l.req?.url ?? ''}`);
}

describe('request log', () => {
  it('writes one line per request at info on a terminal, with the secret masked', async () => {
    const lines = await logged({ terminal: true }, '/marketcheck/popular/cars?api_key=s3cret&car_type=new');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^GET \/marketcheck\/popular\/cars\?api_key=\*\*\*&car_type=new 200 [\d.]+ ms marketcheck/,
    );
    expect(lines.join('\n')).not.toContain('s3cret');
  });

  it('is silent with --quiet, and at info when not on a terminal', async () => {
    expect(await logged({ terminal: true, quiet: true }, '/marketcheck/popular/cars')).toEqual([]);
    expect(await logged({ terminal: false }, '/marketcheck/popular/cars')).toEqual([]);
    const debug = await logged({ terminal: false, logLevel: 'debug' }, '/marketcheck/popular/cars?access_token=abc');
    expect(debug.join('\n')).toContain('/marketcheck/popular/cars?access_token=***');
  });

  it('masks the URL in any line that carries the request', async () => {
    const lines = await logged({ terminal: true, quiet: true }, '/boom?token=t0k&api_key%5B%5D=k1&q=admin-secret');
    expect(lines.length).toBeGreaterThan(0);
    const text = lines.join('\n');
    for (const secret of ['t0k', 'k1', 'admin-secret']) expect(text).not.toContain(secret);
    expect(text).toContain('/boom?token=***&api_key%5B%5D=***&q=***');
  });
});

describe('one masking rule for journal and logs', () => {
  it.each([
    'access_token',
    'token',
    'X-API-Token',
    'api_key',
    'api_key[]',
    'apikey',
    'X-Api-Key',
    'X-Authorization',
    'X-Forwarded-Authorization',
    'Proxy-Authorization',
    'Cookie',
    'client_secret',
    'password',
  ])('%s is a secret', (name) => expect(isSecretName(name)).toBe(true));
  it.each(['keys', 'stringIds', 'car_type', 'sorts', 'monkey', 'accept', 'x-request-id'])('%s is not', (name) =>
    expect(isSecretName(name)).toBe(false),
  );

  it('masks by name in headers, query objects and raw URLs', () => {
    expect(
      maskHeaders({ 'x-forwarded-authorization': 'Bearer abc', 'x-api-token': 'abc', accept: '*/*' }, null),
    ).toEqual({
      'x-forwarded-authorization': 'Bearer ***',
      'x-api-token': '***',
      accept: '*/*',
    });
    expect({ ...maskedQuery('/x?api_key[]=a&api_key[]=b&n=1', null) }).toEqual({ 'api_key[]': ['***', '***'], n: '1' });
    expect(maskUrl('/x?access_token=a&keys=false&n=%20', null)).toBe('/x?access_token=***&keys=false&n=%20');
  });
});
