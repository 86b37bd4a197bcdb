// A request as a stub sees it (as the real service would: real host, path without mockyard's prefix), and how close a rule comes to it.
import type { IncomingHttpHeaders } from 'node:http';
import {
  type BodyView,
  type ParsedJson,
  type Slicing,
  bodyDistance,
  bodyDistanceSliced,
  bodyMatches,
  bodyMatchesSliced,
  distance,
  parseJson,
  valueMatches,
} from './pattern-match.js';
import type { ValuePattern } from './patterns.js';
import type { RequestRule } from './stub.js';

export class StubRequest {
  #query: Map<string, string[]> | undefined;
  #cookies: Map<string, string> | undefined;
  #text: string | undefined;
  #json: ParsedJson | undefined;
  #view: BodyView | undefined;
  readonly path: string;

  constructor(
    readonly method: string,
    /** Path and query as the real service would receive them. */
    readonly url: string,
    /** Host name, lower case, without port. */
    readonly host: string,
    readonly headers: IncomingHttpHeaders,
    readonly body: Buffer | undefined,
  ) {
    const q = url.indexOf('?');
    this.path = q < 0 ? url : url.slice(0, q);
  }

  /** Decoded query values by name, as WireMock's Urls.splitQuery gives them. */
  get query(): Map<string, string[]> {
    if (this.#query) return this.#query;
    const out = new Map<string, string[]>();
    const q = this.url.indexOf('?');
    if (q >= 0) {
      for (const [k, v] of new URLSearchParams(this.url.slice(q + 1))) {
        const list = out.get(k);
        if (list) list.push(v);
        else out.set(k, [v]);
      }
    }
    this.#query = out;
    return out;
  }

  get cookies(): Map<string, string> {
    if (this.#cookies) return this.#cookies;
    const out = new Map<string, string>();
    const header = this.headers.cookie;
    for (const part of (header ?? '').split(';')) {
      const eq = part.indexOf('=');
      if (eq > 0) out.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
    }
    this.#cookies = out;
    return out;
  }

  /** The body as UTF-8 text, decoded once for all the patterns that read it. */
  get bodyText(): string {
    this.#text ??= this.body?.toString('utf8') ?? '';
    return this.#text;
  }

  /** The body as the patterns read it, its text decoded and its JSON parsed once for all of them. */
  get bodyView(): BodyView | undefined {
    if (!this.body) return undefined;
    this.#view ??= {
      bytes: this.body,
      text: this.bodyText,
      json: () => {
        this.#json ??= parseJson(this.bodyText);
        return this.#json;
      },
    };
    return this.#view;
  }

  header(name: string): string[] | undefined {
    const v = this.headers[name];
    if (v === undefined) return undefined;
    return Array.isArray(v) ? v : [v];
  }
}

/** Best distance over a multi-valued field (headers, query parameters): any value may match. */
function multi(p: ValuePattern, values: readonly string[] | undefined): number {
  if (values === undefined || values.length === 0) return distance(p, undefined);
  let best = 1;
  for (const v of values) {
    const d = distance(p, v);
    if (d === 0) return 0;
    if (d < best) best = d;
  }
  return best;
}

/** Whether any value of a multi-valued field matches (none sent: whether the pattern takes an absent value). */
function anyMatches(p: ValuePattern, values: readonly string[] | undefined): boolean {
  if (values === undefined || values.length === 0) return valueMatches(p, undefined);
  for (const v of values) if (valueMatches(p, v)) return true;
  return false;
}

function urlDistance(rule: RequestRule, req: StubRequest): number {
  const u = rule.url;
  switch (u.kind) {
    case 'any':
      return 0;
    case 'url':
      return u.value === req.url ? 0 : 1;
    case 'urlPath':
      return u.value === req.path ? 0 : 1;
    case 'urlPattern':
      return u.regex.test(req.url) ? 0 : 1;
    case 'urlPathPattern':
      return u.regex.test(req.path) ? 0 : 1;
  }
}

const methodDistance = (rule: RequestRule, req: StubRequest) =>
  rule.method === 'ANY' || rule.method === req.method ? 0 : 1;

/** One part of a rule measured against a request: what it is, its distance (0 a match, up to 1) and weight. */
export interface Part {
  what: string;
  d: number;
  weight: number;
}

/** Every part but the body, each with its distance and a weight (URL and method weigh most, as in WireMock). */
function headParts(rule: RequestRule, req: StubRequest): Part[] {
  const out = [
    { what: 'url', d: urlDistance(rule, req), weight: 10 },
    { what: 'method', d: methodDistance(rule, req), weight: 3 },
  ];
  if (rule.host) out.push({ what: 'host', d: distance(rule.host, req.host), weight: 10 });
  for (const [name, p] of rule.query) out.push({ what: `query ${name}`, d: multi(p, req.query.get(name)), weight: 1 });
  for (const [name, p] of rule.headers) out.push({ what: `header ${name}`, d: multi(p, req.header(name)), weight: 1 });
  for (const [name, p] of rule.cookies)
    out.push({ what: `cookie ${name}`, d: distance(p, req.cookies.get(name)), weight: 1 });
  return out;
}

/** Every part of the rule, each with its distance and a weight. */
export function parts(rule: RequestRule, req: StubRequest): Part[] {
  const out = headParts(rule, req);
  for (const p of rule.body)
    out.push({
      what: 'body',
      d: req.bodyView ? bodyDistance(p, req.bodyView) : distance(p, undefined),
      weight: 1,
    });
  return out;
}

/** `parts`, with the body's patterns measured a leaf at a time between turns of the event loop (near misses). */
export async function partsSliced(rule: RequestRule, req: StubRequest, slicing: Slicing): Promise<Part[]> {
  const out = headParts(rule, req);
  for (const p of rule.body)
    out.push({
      what: 'body',
      d: req.bodyView ? await bodyDistanceSliced(p, req.bodyView, slicing) : distance(p, undefined),
      weight: 1,
    });
  return out;
}

/** Weighted mean distance: 0 only when every part matches. */
export function requestDistance(rule: RequestRule, req: StubRequest): number {
  return meanDistance(parts(rule, req));
}

/** The weighted mean of parts' distances (requestDistance of the parts `parts` gave). */
export function meanDistance(list: readonly { d: number; weight: number }[]): number {
  let sum = 0;
  let weights = 0;
  for (const { d, weight } of list) {
    sum += d * weight;
    weights += weight;
  }
  return sum / weights;
}

/** Every part but the body: values of a few KiB at most (Node's header limit bounds them). */
function headMatches(rule: RequestRule, req: StubRequest): boolean {
  if (methodDistance(rule, req) !== 0 || urlDistance(rule, req) !== 0) return false;
  if (rule.host && !valueMatches(rule.host, req.host)) return false;
  for (const [name, p] of rule.query) if (!anyMatches(p, req.query.get(name))) return false;
  for (const [name, p] of rule.headers) if (!anyMatches(p, req.header(name))) return false;
  for (const [name, p] of rule.cookies) if (!valueMatches(p, req.cookies.get(name))) return false;
  return true;
}

/** Whether every part matches, stopping at the first that does not (the hot path). */
export function requestMatches(rule: RequestRule, req: StubRequest): boolean {
  if (!headMatches(rule, req)) return false;
  for (const p of rule.body) {
    const body = req.bodyView;
    if (!(body ? bodyMatches(p, body) : valueMatches(p, undefined))) return false;
  }
  return true;
}

/** The same for a large body, its patterns one leaf at a time with `tick` between (see bodyMatchesSliced). */
export async function requestMatchesSliced(rule: RequestRule, req: StubRequest, slicing: Slicing): Promise<boolean> {
  if (!headMatches(rule, req)) return false;
  for (const p of rule.body) {
    const body = req.bodyView;
    const hit = body ? await bodyMatchesSliced(p, body, slicing) : valueMatches(p, undefined);
    if (!hit) return false;
  }
  return true;
}
