// Recording: what passes to an upstream becomes WireMock mappings, secrets masked, kept for snapshot and --record-to.
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { MASK, isSecretName } from '../platform/controls/secrets.js';
import type { UpstreamAnswer } from './answer.js';
import type { StubRequest } from './request.js';
import type { RecordedExchange } from './to-scenario.js';

export type RecordingStatus = 'NeverStarted' | 'Recording' | 'Stopped';

/** Exchanges kept for a snapshot; the oldest go first. */
export const MAX_CAPTURES = 1000;

interface Capture {
  key: string;
  mapping: Record<string, unknown>;
  exchange: RecordedExchange;
}

const TEXTUAL = /^(?:text\/|application\/(?:[\w.+-]+\+)?(?:json|xml|javascript|x-www-form-urlencoded))/i;

/** The request part of a recorded mapping: the exact URL, or path + parameters when a secret must not be kept. */
function requestPattern(req: StubRequest, captureHeaders: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = { method: req.method };
  const secret = [...req.query.keys()].some(isSecretName);
  if (!secret) out.url = req.url;
  else {
    out.urlPath = req.path;
    const params: Record<string, unknown> = {};
    for (const [name, values] of req.query) {
      // A secret is matched as "present": the replay accepts any key, and the file never holds it.
      params[name] = isSecretName(name) ? { matches: '.+' } : { equalTo: values[0] };
    }
    out.queryParameters = params;
  }
  const headers: Record<string, unknown> = {};
  for (const name of captureHeaders) {
    const value = req.header(name.toLowerCase())?.[0];
    if (value === undefined) continue;
    headers[name] = isSecretName(name) ? { matches: '.+' } : { equalTo: value };
  }
  if (Object.keys(headers).length > 0) out.headers = headers;
  if (req.body && req.body.length > 0) out.bodyPatterns = [{ equalTo: req.body.toString('utf8') }];
  return out;
}

/** The credentials a request carried (secret query values, secret headers' tokens), to keep out of what is saved. */
function secretsOf(req: StubRequest, adminToken: string | null): string[] {
  const out: string[] = adminToken ? [adminToken] : [];
  for (const [name, values] of req.query) if (isSecretName(name)) out.push(...values);
  for (const [name, value] of Object.entries(req.headers)) {
    if (!isSecretName(name) || value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) {
      const space = v.indexOf(' ');
      out.push(space > 0 && name.endsWith('authorization') ? v.slice(space + 1) : v);
    }
  }
  // Short values would mask ordinary text; longest first, so a value is not half-masked by a shorter one.
  return out.filter((v) => v.length >= 4).sort((a, b) => b.length - a.length);
}

const hide = (text: string, secrets: readonly string[]) => secrets.reduce((t, s) => t.split(s).join(MASK), text);

function responseDefinition(answer: UpstreamAnswer, secrets: readonly string[]): Record<string, unknown> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of answer.headers) {
    if (name === 'date') continue;
    const shown = isSecretName(name) || name === 'set-cookie' ? MASK : hide(value, secrets);
    const prev = headers[name];
    headers[name] = prev === undefined ? shown : Array.isArray(prev) ? [...prev, shown] : [prev, shown];
  }
  const out: Record<string, unknown> = { status: answer.status, headers };
  if (answer.body.length === 0) return out;
  const type = answer.headers.find(([n]) => n === 'content-type')?.[1] ?? '';
  if (TEXTUAL.test(type)) {
    out.body = hide(answer.body.toString('utf8'), secrets);
  } else out.base64Body = answer.body.toString('base64');
  return out;
}

/** The exchange as a scenario conversion reads it: the masked body, parsed when it is JSON. */
function exchangeOf(
  req: StubRequest,
  status: number,
  body: unknown,
  mapping: Record<string, unknown>,
): RecordedExchange {
  let json: unknown;
  if (typeof body === 'string') {
    try {
      json = JSON.parse(body);
    } catch {
      json = undefined;
    }
  }
  return { method: req.method, host: req.host, path: req.path, status, json, mapping };
}

export class Recorder {
  #status: RecordingStatus = 'NeverStarted';
  #target: string | null = null;
  #captureHeaders: readonly string[] = [];
  /** Exchanges of the current recording. */
  #session: Capture[] = [];
  /** Every proxied exchange (recording or proxy stubs), for snapshots. */
  #all: Capture[] = [];

  constructor(
    /** --record-to: every capture is also written there as WireMock's mappings/ files. */
    readonly recordTo: string | null,
    readonly adminToken: string | null,
  ) {
    if (recordTo) mkdirSync(path.join(recordTo, 'mappings'), { recursive: true });
  }

  get status(): RecordingStatus {
    return this.#status;
  }

  /** Where requests go while recording, or null. */
  get target(): string | null {
    return this.#status === 'Recording' ? this.#target : null;
  }

  start(targetBaseUrl: string, captureHeaders: readonly string[] = []): void {
    this.#status = 'Recording';
    this.#target = targetBaseUrl.replace(/\/+$/, '');
    this.#captureHeaders = captureHeaders;
    this.#session = [];
  }

  /** Ends the recording; returns its mappings (one per distinct request, the first answer kept). */
  stop(): Record<string, unknown>[] {
    this.#status = 'Stopped';
    this.#target = null;
    const out = this.#session.map((c) => c.mapping);
    this.#session = [];
    return out;
  }

  snapshot(): Record<string, unknown>[] {
    return this.#all.map((c) => c.mapping);
  }

  /** The exchanges behind `snapshot()`, for turning them into a scenario's records (to-scenario.ts). */
  exchanges(): RecordedExchange[] {
    return this.#all.map((c) => c.exchange);
  }

  /** Like `stop()`, with the exchanges of the recording that ends. */
  stopExchanges(): RecordedExchange[] {
    const out = this.#session.map((c) => c.exchange);
    this.stop();
    return out;
  }

  capture(req: StubRequest, answer: UpstreamAnswer): void {
    const key = `${req.method} ${req.url} ${req.body?.toString('base64') ?? ''}`;
    if (this.#all.some((c) => c.key === key)) return;
    const id = randomUUID();
    const mapping = {
      id,
      name: `${req.method.toLowerCase()} ${req.path}`.slice(0, 200),
      request: requestPattern(req, this.#captureHeaders),
      response: responseDefinition(answer, secretsOf(req, this.adminToken)),
    };
    const response = mapping.response;
    const capture = { key, mapping, exchange: exchangeOf(req, answer.status, response.body, mapping) };
    if (this.#status === 'Recording') this.#session.push(capture);
    this.#all.push(capture);
    if (this.#all.length > MAX_CAPTURES) this.#all.shift();
    if (this.recordTo) {
      const slug =
        req.path
          .replace(/[^A-Za-z0-9]+/g, '-')
          .replace(/^-|-$/g, '')
          .slice(0, 60) || 'root';
      writeFileSync(
        path.join(this.recordTo, 'mappings', `${slug}-${id}.json`),
        `${JSON.stringify(mapping, null, 2)}\n`,
      );
    }
  }

  reset(): void {
    this.#all = [];
    this.#session = [];
  }
}
