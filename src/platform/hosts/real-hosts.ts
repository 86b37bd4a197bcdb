// Which area answers for a real service's host name, and at which base path (from each contract's `servers`).
import type { IncomingMessage } from 'node:http';
import type { AreaDefinition, AreaName } from '../area.js';

export interface HostRule {
  /** A host name, or `*.domain` for any name below it. */
  host: string;
  area: AreaName;
  /** The path every operation of the contract sits under on this host; '' for the root. */
  basePath: string;
}

/** The real hosts, with the base paths of the contracts' `servers` entries. */
export const REAL_HOSTS: readonly HostRule[] = [
  // a-archive: https://archive.org; the data nodes iaNNNNNN.us.archive.org serve /{n}/items/{id}/{file}.
  { host: 'archive.org', area: 'archive', basePath: '' },
  { host: '*.archive.org', area: 'archive', basePath: '' },
  // b-marketcheck: https://marketcheck-prod.apigee.net/v2, https://api.marketcheck.com/v2, https://mc-api.marketcheck.com/v2.
  { host: 'marketcheck-prod.apigee.net', area: 'marketcheck', basePath: '/v2' },
  { host: 'api.marketcheck.com', area: 'marketcheck', basePath: '/v2' },
  { host: 'mc-api.marketcheck.com', area: 'marketcheck', basePath: '/v2' },
  // c-appcenter: https://api.appcenter.ms.
  { host: 'api.appcenter.ms', area: 'appcenter', basePath: '' },
  // d-agco: https://secure.agco-ats.com.
  { host: 'secure.agco-ats.com', area: 'agco', basePath: '' },
  // e-dkan: https://data.medicaid.gov/api/1 and https://data.cms.gov/provider-data/api/1.
  { host: 'data.medicaid.gov', area: 'dkan', basePath: '/api/1' },
  { host: 'data.cms.gov', area: 'dkan', basePath: '/provider-data/api/1' },
];

/** Base path of a host added with --host-map: the contract's generic server (DKAN's `{scheme}://{host}/api/1`). */
export const MAPPED_BASE_PATH: Readonly<Record<AreaName, string>> = {
  archive: '',
  marketcheck: '/v2',
  appcenter: '',
  agco: '',
  dkan: '/api/1',
};

/** Names that mean mockyard itself: requests for them keep the /archive, /dkan, ... prefixes. */
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '::1', '0.0.0.0', '::']);

export interface HostRoute {
  area: AreaDefinition;
  basePath: string;
  hostname: string;
}

/** `host[:port]`, `[v6]:port` or a bare name -> the lower-case name without brackets or port. */
export function hostnameOf(authority: string): string {
  const a = authority.trim().toLowerCase();
  if (a.startsWith('[')) {
    const end = a.indexOf(']');
    return end < 0 ? a : a.slice(1, end);
  }
  const colon = a.indexOf(':');
  // More than one colon without brackets: a bare IPv6 address.
  if (colon >= 0 && a.indexOf(':', colon + 1) >= 0) return a;
  // The root's trailing dot (archive.org.) names the same host, with or without a port.
  return (colon >= 0 ? a.slice(0, colon) : a).replace(/\.$/, '');
}

// Where a path outside the host's base path goes: no route matches it, so the area answers its own 404.
export const OUTSIDE_BASE = '/~outside-base-path';

export class HostRouter {
  private readonly exact = new Map<string, HostRule>();
  private readonly wildcards: HostRule[] = [];
  private readonly areas: ReadonlyMap<AreaName, AreaDefinition>;
  readonly #byHost = new Map<string, HostRoute | null>();

  constructor(areas: readonly AreaDefinition[], mapped: readonly { host: string; area: AreaName }[] = []) {
    this.areas = new Map(areas.map((a) => [a.name, a]));
    // Mapped hosts first: a company's own name wins over a built-in wildcard.
    const rules = [...mapped.map((m) => ({ ...m, basePath: MAPPED_BASE_PATH[m.area] })), ...REAL_HOSTS];
    for (const rule of rules) {
      if (!this.areas.has(rule.area)) continue;
      const host = rule.host.toLowerCase();
      if (host.startsWith('*.')) this.wildcards.push({ ...rule, host: host.slice(1) });
      else if (!this.exact.has(host)) this.exact.set(host, { ...rule, host });
    }
  }

  isLocal(hostname: string): boolean {
    return LOCAL_HOSTS.has(hostname);
  }

  /** The area serving `hostname` under its real name, or undefined (mockyard's own names, unknown names). */
  match(hostname: string): HostRoute | undefined {
    const rule =
      this.exact.get(hostname) ??
      this.wildcards.find((w) => hostname.endsWith(w.host) && hostname.length > w.host.length);
    if (!rule) return undefined;
    return { area: this.areas.get(rule.area)!, basePath: rule.basePath, hostname };
  }

  /**
   * `match` by a Host header as sent. A server sees the same few Host values again and again, so the answer
   * is remembered per value (HostRoute is never changed once made); at most 256 values are kept, and the
   * memory starts over when a client sends more distinct names than that.
   */
  matchHost(host: string): HostRoute | undefined {
    let found = this.#byHost.get(host);
    if (found === undefined) {
      if (this.#byHost.size >= 256) this.#byHost.clear();
      found = this.match(hostnameOf(host)) ?? null;
      this.#byHost.set(host, found);
    }
    return found ?? undefined;
  }

  /** The names a certificate for the TLS port covers: mockyard's own and every real or mapped host. */
  certificateNames(extra: readonly string[] = []): string[] {
    const names = ['localhost', '127.0.0.1', '::1', ...extra, ...this.exact.keys()];
    for (const w of this.wildcards) {
      names.push(`*${w.host}`);
      // A wildcard covers one label only; archive.org's data nodes are one further down (iaNNN.us.archive.org).
      if (w.host === '.archive.org') names.push('*.us.archive.org');
    }
    return [...new Set(names)];
  }

  /** The prefixed URL that the area's routes answer, for a path and query sent to the real host. */
  static rewrite(route: HostRoute, target: string): string {
    const { basePath, area } = route;
    if (basePath === '') return `${area.prefix}${target}`;
    const rest = target.slice(basePath.length);
    if (target.startsWith(basePath) && (rest === '' || rest.startsWith('/') || rest.startsWith('?')))
      return `${area.prefix}${rest}`;
    return `${area.prefix}${OUTSIDE_BASE}${target}`;
  }
}

const realHostRequests = new WeakMap<IncomingMessage, HostRoute>();

export function markRealHost(req: IncomingMessage, route: HostRoute): void {
  realHostRequests.set(req, route);
}

/** The real host a request was sent to (by Host header or proxy), when it was not one of mockyard's own names. */
export function realHostOf(req: IncomingMessage): HostRoute | undefined {
  return realHostRequests.get(req);
}
