// --tls-port: HTTPS for Docker networks where mockyard carries the real host names as aliases.
import https from 'node:https';
import { readFileSync } from 'node:fs';
import type { TLSSocket } from 'node:tls';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectContract } from '../helpers/contract.js';
import { REAL_HOSTS } from '../../src/platform/hosts/real-hosts.js';
import { type Answer, catalogOf, readAnswer, realOperations, startHosted, type Hosted } from './helpers.js';

interface TlsAnswer extends Answer {
  altNames: string;
}

/** What a client resolving `name` to mockyard (a network alias, /etc/hosts) sends: SNI and Host are the real name. */
function getAs(
  port: number,
  name: string,
  pathAndQuery: string,
  ca: string,
  headers: Record<string, string> = {},
): Promise<TlsAnswer> {
  return new Promise((resolve, reject) => {
    const req = https.get(
      {
        host: '127.0.0.1',
        port,
        servername: name === '127.0.0.1' ? undefined : name,
        path: pathAndQuery,
        headers: { host: name, ...headers },
        ca,
        agent: false,
      },
      (res) => {
        const altNames = (res.socket as TLSSocket).getPeerCertificate().subjectaltname ?? '';
        readAnswer(res).then((answer) => resolve({ ...answer, altNames }), reject);
      },
    );
    req.on('error', reject);
  });
}

describe('--tls-port', () => {
  let hosted: Hosted;
  let port: number;
  let ca: string;

  beforeAll(async () => {
    hosted = await startHosted({ tlsPort: 0, hostMap: 'data.example.gov=dkan' });
    expect(hosted.server.tlsUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    port = Number(new URL(hosted.server.tlsUrl!).port);
    ca = readFileSync(hosted.caPath, 'utf8');
  });

  it('serves every area under its real host names, verified against the local CA', async () => {
    for (const op of await realOperations(hosted.server)) {
      const url = new URL(op.url);
      const res = await getAs(port, url.hostname, `${url.pathname}${url.search}`, ca, op.headers);
      expect(res.statusCode, op.url).toBe(200);
      expectContract(op.operationId, res);
    }
  });

  it('presents one certificate for localhost, 127.0.0.1, every real host and every mapped host', async () => {
    const { altNames } = await getAs(port, 'localhost', '/__mockyard/health', ca);
    const names = altNames.split(', ');
    for (const expected of ['DNS:localhost', 'IP Address:127.0.0.1', 'DNS:data.example.gov', 'DNS:*.us.archive.org'])
      expect(names).toContain(expected);
    for (const rule of REAL_HOSTS) expect(names).toContain(`DNS:${rule.host}`);
  });

  it('answers a data node name and a mapped name', async () => {
    const c = await catalogOf(hosted.server);
    const id = c.archive.items.find((i) => i.status === 'ok')!.identifier;
    const record = JSON.parse((await getAs(port, 'archive.org', `/metadata/${id}`, ca)).body) as {
      server: string;
      dir: string;
      files: { name: string; size: string }[];
    };
    const file = record.files.find((f) => !f.name.includes('/'))!;
    const fromNode = await getAs(port, record.server, `${record.dir}/${encodeURIComponent(file.name)}`, ca);
    expect(fromNode.statusCode).toBe(200);
    expect(Number(fromNode.headers['content-length'])).toBe(Number(file.size));
    const dataset = c.dkan.datasets[0]!.id;
    const mapped = await getAs(port, 'data.example.gov', `/api/1/datastore/query/${dataset}/0?limit=1`, ca);
    expect(mapped.statusCode).toBe(200);
  });

  it('keeps the prefixes for localhost and 127.0.0.1', async () => {
    const c = await catalogOf(hosted.server);
    const id = c.archive.items.find((i) => i.status === 'ok')!.identifier;
    for (const name of ['localhost', '127.0.0.1']) {
      const res = await getAs(port, name, `/archive/metadata/${id}`, ca);
      expect(res.statusCode, name).toBe(200);
      expectContract('getItemMetadata', res);
    }
  });
});
