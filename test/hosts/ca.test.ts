// The local certificate authority: made once, private key 0600, reused across restarts; leaves cached in memory.
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, caDirOf, resolveConfig } from '../../src/config.js';
import { CA_CERT_FILE, CA_KEY_FILE, CertificateAuthority, ensureCa } from '../../src/platform/hosts/certificates.js';
import { startMockyard } from '../../src/index.js';

const run = promisify(execFile);
const cli = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'bundle', 'cli.js');
const tmp = mkdtempSync(path.join(tmpdir(), 'mockyard-ca-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function leafOf(pem: string): X509Certificate {
  return new X509Certificate(pem.slice(0, pem.indexOf('-----END CERTIFICATE-----') + 25));
}

describe('local certificate authority', () => {
  it('is made on first use with a 0600 key, and a second start reuses it', async () => {
    const dir = path.join(tmp, 'restart');
    const first = await startMockyard({ caDir: dir });
    const cert = readFileSync(path.join(dir, CA_CERT_FILE), 'utf8');
    const key = readFileSync(path.join(dir, CA_KEY_FILE), 'utf8');
    await first.close();
    expect(statSync(path.join(dir, CA_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o077).toBe(0);
    const caCert = new X509Certificate(cert);
    expect(caCert.ca).toBe(true);

    const second = await startMockyard({ caDir: dir });
    await second.close();
    expect(readFileSync(path.join(dir, CA_CERT_FILE), 'utf8')).toBe(cert);
    expect(readFileSync(path.join(dir, CA_KEY_FILE), 'utf8')).toBe(key);
  });

  it('defaults to a ca folder in the data folder', () => {
    expect(caDirOf(resolveConfig({ dataDir: tmp }, {}))).toBe(path.join(tmp, 'ca'));
    expect(caDirOf(resolveConfig({ dataDir: tmp }, { MOCKYARD_CA_DIR: path.join(tmp, 'elsewhere') }))).toBe(
      path.join(tmp, 'elsewhere'),
    );
  });

  it('issues leaf certificates for a host, signed by the CA, once per name', async () => {
    const dir = path.join(tmp, 'leaves');
    const authority = new CertificateAuthority(dir);
    const caCert = new X509Certificate(readFileSync((await ensureCa(dir)).certPath));
    const leaf = leafOf((await authority.issue(['api.appcenter.ms', '127.0.0.1'])).cert);
    expect(leaf.verify(caCert.publicKey)).toBe(true);
    expect(leaf.checkIssued(caCert)).toBe(true);
    expect(leaf.checkHost('api.appcenter.ms')).toBe('api.appcenter.ms');
    expect(leaf.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(leaf.checkHost('archive.org')).toBeUndefined();
    expect(authority.contextFor('Archive.org')).toBe(authority.contextFor('archive.org'));
  });

  it('ends with one CA when several mockyards make it at once', async () => {
    const dir = path.join(tmp, 'race');
    await Promise.all([ensureCa(dir), ensureCa(dir), ensureCa(dir)]);
    const caCert = new X509Certificate(readFileSync(path.join(dir, CA_CERT_FILE)));
    const leaf = leafOf((await new CertificateAuthority(dir).issue(['archive.org'])).cert);
    expect(leaf.verify(caCert.publicKey)).toBe(true);
  });

  it('`mockyard ca` prints the certificate path and how to trust it', async () => {
    const dir = path.join(tmp, 'cli');
    const { stdout } = await run(process.execPath, [cli, 'ca', '--ca-dir', dir]);
    const certPath = path.join(dir, CA_CERT_FILE);
    expect(stdout.split('\n')[0]).toBe(certPath);
    for (const hint of [
      `NODE_EXTRA_CA_CERTS=${certPath}`,
      `REQUESTS_CA_BUNDLE=${certPath}`,
      `--cacert ${certPath}`,
      'update-ca-certificates',
    ])
      expect(stdout).toContain(hint);
    const cert = readFileSync(certPath, 'utf8');
    await run(process.execPath, [cli, 'ca', '--ca-dir', dir]);
    expect(readFileSync(certPath, 'utf8')).toBe(cert);
  });
});

describe('--host-map', () => {
  it('reads name=area pairs, wildcards included', () => {
    expect(resolveConfig({ hostMap: 'Data.Example.gov=dkan, *.example.test=archive' }).hostMap).toEqual([
      { host: 'data.example.gov', area: 'dkan' },
      { host: '*.example.test', area: 'archive' },
    ]);
    expect(resolveConfig({ hostMap: [{ host: 'x.test', area: 'agco' }] }).hostMap).toEqual([
      { host: 'x.test', area: 'agco' },
    ]);
  });

  it('refuses an unknown area or a malformed entry with a message', () => {
    expect(() => resolveConfig({ hostMap: 'data.example.gov=ckan' })).toThrow(ConfigError);
    expect(() => resolveConfig({ hostMap: 'data.example.gov' })).toThrow(/name=area/);
    expect(() => resolveConfig({ hostMap: 'http://x=dkan' })).toThrow(/name=area/);
  });
});
