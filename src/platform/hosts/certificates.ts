// mockyard's local certificate authority: made once per CA folder and reused; leaf certificates live in memory.
import { randomBytes, webcrypto } from 'node:crypto';
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import { setTimeout as sleep } from 'node:timers/promises';
import type * as X509 from '@peculiar/x509';
import { LRUCache } from 'lru-cache';
import { CertificateIssuer, type LeafCertificate } from './cert-issuer.js';
import { Pacer } from './pacer.js';

export const CA_CERT_FILE = 'mockyard-ca.pem';
export const CA_KEY_FILE = 'mockyard-ca-key.pem';

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

const crypto = webcrypto;

/**
 * The X.509 library, loaded on first need (the module loader keeps it after): a start with the CA already
 * on disk never pays for it.
 */
async function loadX509(): Promise<typeof X509> {
  // @peculiar/x509 resolves its algorithms through tsyringe, which needs the Reflect metadata API first.
  await import('reflect-metadata');
  const loaded = (await import('@peculiar/x509')) as typeof X509 & { default?: typeof X509 };
  // The package's CommonJS build, imported from ESM (as in the bundle), arrives as a default export.
  const x509 = loaded.cryptoProvider ? loaded : loaded.default!;
  // Node's WebCrypto; its types are Node's own, not the DOM ones the library declares.
  x509.cryptoProvider.set(crypto as never);
  return x509;
}

// P-256 ECDSA: every TLS client in use accepts it, and a key takes microseconds where RSA takes tens of milliseconds.
const KEY_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING_ALGORITHM = { name: 'ECDSA', hash: 'SHA-256' } as const;
const DAY_MS = 86_400_000;
// Clients refuse leaf certificates valid for more than 398 days; the CA itself may live longer.
const LEAF_DAYS = 397;
const CA_DAYS = 3650;
// Each cached TLS context holds about 150 kB; with wildcard names, a few cover every real host.
const LEAF_CACHE_SIZE = 100;

export interface CaFiles {
  dir: string;
  certPath: string;
  keyPath: string;
}

export function caFiles(dir: string): CaFiles {
  return { dir, certPath: path.join(dir, CA_CERT_FILE), keyPath: path.join(dir, CA_KEY_FILE) };
}

function pemKey(der: ArrayBuffer): string {
  const body = Buffer.from(der)
    .toString('base64')
    .replace(/(.{64})/g, '$1\n');
  return `-----BEGIN PRIVATE KEY-----\n${body.trimEnd()}\n-----END PRIVATE KEY-----\n`;
}

function derOfPem(pem: string): ArrayBuffer {
  const bytes = Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

function serial(): string {
  // Positive (top bit clear) and 16 random bytes, as RFC 5280 asks.
  const bytes = randomBytes(16);
  bytes[0] = bytes[0]! & 0x7f;
  return bytes.toString('hex');
}

/** Creates `target` with `content` unless it exists: of several mockyards started at once, one wins. */
function writeOnce(target: string, content: string, mode: number): boolean {
  const temp = `${target}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(temp, content, { mode });
    chmodSync(temp, mode);
    linkSync(temp, target);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    rmSync(temp, { force: true });
  }
}

async function createCa(files: CaFiles): Promise<void> {
  const x509 = await loadX509();
  mkdirSync(files.dir, { recursive: true, mode: 0o700 });
  const keys = (await crypto.subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    // A per-CA suffix, so two machines' CAs are told apart in a trust store.
    name: `CN=mockyard local CA ${randomBytes(4).toString('hex')}, O=mockyard`,
    notBefore: new Date(now - DAY_MS),
    notAfter: new Date(now + CA_DAYS * DAY_MS),
    signingAlgorithm: SIGNING_ALGORITHM,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  // The key first: whoever writes it owns the CA and then writes the certificate that goes with it.
  if (!writeOnce(files.keyPath, pemKey(await crypto.subtle.exportKey('pkcs8', keys.privateKey)), 0o600)) return;
  writeOnce(files.certPath, cert.toString('pem'), 0o644);
}

async function readCa(files: CaFiles): Promise<{ cert: X509.X509Certificate; key: CryptoKey; certPem: string }> {
  const x509 = await loadX509();
  let certPem: string;
  let keyPem: string;
  try {
    certPem = readFileSync(files.certPath, 'utf8');
    keyPem = readFileSync(files.keyPath, 'utf8');
  } catch (err) {
    throw new Error(
      `cannot read the mockyard CA in ${files.dir} (${(err as Error).message}); remove the folder to make a new one`,
    );
  }
  const cert = new x509.X509Certificate(certPem);
  const key = await crypto.subtle.importKey('pkcs8', derOfPem(keyPem), KEY_ALGORITHM, false, ['sign']);
  return { cert, key, certPem };
}

/** Makes the CA in `dir` unless one is there; returns its files. */
export async function ensureCa(dir: string): Promise<CaFiles> {
  const files = caFiles(dir);
  if (!existsSync(files.keyPath)) await createCa(files);
  // Another mockyard may have written the key and not yet the certificate.
  for (let waited = 0; !existsSync(files.certPath) && waited < 5000; waited += 50) await sleep(50);
  if (!existsSync(files.certPath))
    throw new Error(`${files.dir} has a CA key but no certificate; remove the folder to make a new CA`);
  return files;
}

/**
 * The CA, loaded (or made) on first use. Every leaf shares one key pair made then, as mitmproxy's
 * leaves do: only the certificates differ, and those are cached per name.
 */
export class CertificateAuthority {
  readonly files: CaFiles;
  private loaded:
    | Promise<{
        x509: typeof X509;
        cert: X509.X509Certificate;
        key: CryptoKey;
        certPem: string;
        leafKeys: CryptoKeyPair;
        leafKeyPem: string;
      }>
    | undefined;
  private readonly contexts = new LRUCache<string, Promise<tls.SecureContext>>({ max: LEAF_CACHE_SIZE });
  /** Issues the proxy's leaf certificates in a process of its own (made on first need). */
  readonly #issuer: CertificateIssuer;
  /** Secure contexts are made from PEM one per event-loop turn: a burst of issued names never holds the loop. */
  readonly #pacer = new Pacer();

  constructor(dir: string) {
    this.files = caFiles(dir);
    this.#issuer = new CertificateIssuer(dir);
  }

  /** Makes the CA when its folder has none; certificates are issued (and the library loaded) on first need. */
  async ready(): Promise<void> {
    await ensureCa(this.files.dir);
  }

  private load() {
    this.loaded ??= (async () => {
      await ensureCa(this.files.dir);
      const x509 = await loadX509();
      const ca = await readCa(this.files);
      const leafKeys = (await crypto.subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
      const leafKeyPem = pemKey(await crypto.subtle.exportKey('pkcs8', leafKeys.privateKey));
      return { ...ca, x509, leafKeys, leafKeyPem };
    })();
    // A failed load (unreadable folder) is tried again on the next use rather than remembered.
    this.loaded.catch(() => (this.loaded = undefined));
    return this.loaded;
  }

  /** A certificate for these names (DNS names, `*.` wildcards or IP addresses), signed by the CA. */
  async issue(names: readonly string[]): Promise<LeafCertificate> {
    const ca = await this.load();
    const { x509 } = ca;
    const now = Date.now();
    const leaf = await x509.X509CertificateGenerator.create({
      serialNumber: serial(),
      subject: `CN=${names[0]!.replace(/[,+="\\<>;#]/g, '')}`,
      issuer: ca.cert.subject,
      notBefore: new Date(now - DAY_MS),
      notAfter: new Date(now + LEAF_DAYS * DAY_MS),
      signingAlgorithm: SIGNING_ALGORITHM,
      publicKey: ca.leafKeys.publicKey,
      signingKey: ca.key,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        new x509.SubjectAlternativeNameExtension(names.map((n) => ({ type: isIP(n) ? 'ip' : 'dns', value: n }))),
        await x509.AuthorityKeyIdentifierExtension.create(ca.cert),
        await x509.SubjectKeyIdentifierExtension.create(ca.leafKeys.publicKey),
      ],
    });
    return { cert: `${leaf.toString('pem')}\n${ca.certPem}`, key: ca.leafKeyPem };
  }

  /**
   * A TLS context presenting a certificate for `hostname`; issued once, then served from memory. One
   * wildcard certificate covers every name one label below the same parent (foo.archive.org and
   * bar.archive.org share *.archive.org), so many names cost one certificate. Certificates are built and
   * signed in the issuer's process; past its queue (CertificateQueueFull) the name is not remembered.
   */
  contextFor(hostname: string): Promise<tls.SecureContext> {
    const name = certificateName(hostname.toLowerCase());
    let context = this.contexts.get(name);
    if (!context) {
      const issued = this.#issuer.issue([name]).then((leaf) => this.#pacer.run(() => tls.createSecureContext(leaf)));
      context = issued;
      issued.catch(() => {
        if (this.contexts.peek(name) === issued) this.contexts.delete(name);
      });
      this.contexts.set(name, context);
    }
    return context;
  }

  /** Ends the certificate process (it also ends by itself when idle). */
  close(): void {
    this.#issuer.close();
  }
}

/**
 * The name to issue for `hostname`: `*.parent` for a name with three labels or more (a wildcard covers
 * exactly one label, RFC 6125 6.4.3), except right below a public suffix such as co.uk, which clients
 * refuse; the name itself otherwise (two labels, IP addresses, localhost).
 */
export function certificateName(hostname: string): string {
  if (isIP(hostname) !== 0) return hostname;
  const labels = hostname.split('.');
  if (labels.length < 3 || labels[0] === '*') return hostname;
  const parent = labels.slice(1);
  const publicSuffixLike = parent.length === 2 && parent[1]!.length === 2 && parent[0]!.length <= 3;
  return publicSuffixLike ? hostname : `*.${parent.join('.')}`;
}
