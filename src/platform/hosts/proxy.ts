// The HTTP server in front of the app: routing by real host name, a forward proxy (absolute-form and CONNECT)
// that serves known hosts itself, and the TLS port. It never opens a connection to anywhere.
import type { IncomingMessage, Server, ServerOptions, ServerResponse } from 'node:http';
import { STATUS_CODES, http } from '../http/node-http.js';
import { mockyardErrorJson } from '../http/mockyard-errors.js';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { CertificateQueueFull } from './cert-issuer.js';
import type { CertificateAuthority } from './certificates.js';
import { Pacer } from './pacer.js';
import { HostRouter, hostnameOf, markRealHost } from './real-hosts.js';

export interface FrontOptions {
  router: HostRouter;
  ca: CertificateAuthority;
  /** Node's server options (header size, timeouts). */
  server: ServerOptions;
}

export function refusalMessage(hostname: string): string {
  return (
    `mockyard does not serve ${hostname} and never forwards requests to the internet. ` +
    `It answers for the real hosts of its five areas; add this one with --host-map ${hostname}=<area> ` +
    '(archive, marketcheck, appcenter, agco or dkan).'
  );
}

/** mockyard's error body written straight to Node's response, for answers given before Fastify is entered. */
function answerError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}) {
  const body = mockyardErrorJson(status, message);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

const refuse = (res: ServerResponse, hostname: string): void =>
  answerError(res, 403, refusalMessage(hostname), { 'mockyard-error': 'unknown host' });

/** Answers a CONNECT that gets no tunnel, and closes the socket. */
function refuseTunnel(socket: Duplex, status: number, message: string, extra = ''): void {
  const body = mockyardErrorJson(status, message);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}connection: close\r\n\r\n${body}`,
  );
}

/**
 * Points a request at the prefixed URL of the area that serves its host. Absolute-form targets
 * (`GET http://archive.org/... HTTP/1.1`, sent to a proxy) are served by their own host or refused;
 * origin-form requests go by their Host header, and mockyard's own or unknown names keep the prefixes.
 * Returns false when the request was refused.
 */
function route(router: HostRouter, req: IncomingMessage, res: ServerResponse): boolean {
  const url = req.url ?? '/';
  if (!url.startsWith('/') && url !== '*') {
    // Split by hand rather than with URL: its dot-segment and backslash clean-up would change the path
    // that the area sees compared with the same request sent directly.
    const m = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)(.*)$/i.exec(url);
    if (!m) return true; // Not a URL: Fastify answers it as a bad request.
    const authority = m[1]!.replace(/^[^@]*@/, '');
    const rest = m[2]!;
    const pathAndQuery = rest.startsWith('/') ? rest : `/${rest}`;
    const hostname = hostnameOf(authority);
    const found = router.match(hostname);
    if (!found && !router.isLocal(hostname)) {
      refuse(res, hostname);
      return false;
    }
    // The target's authority replaces Host (RFC 9112 §3.2.2).
    req.headers.host = authority;
    if (found) markRealHost(req, found);
    req.url = found ? HostRouter.rewrite(found, pathAndQuery) : pathAndQuery;
    return true;
  }
  const host = req.headers.host;
  if (host === undefined) return true;
  const found = router.matchHost(host);
  if (found) {
    markRealHost(req, found);
    req.url = HostRouter.rewrite(found, url);
  }
  return true;
}

/** Hands a socket (a tunnel or a TLS port connection) to the HTTP server, as if it had connected directly. */
function serveTls(server: Server, socket: Duplex, context: tls.SecureContext): void {
  const secure = new tls.TLSSocket(socket, { isServer: true, secureContext: context, ALPNProtocols: ['http/1.1'] });
  secure.on('error', () => secure.destroy());
  server.emit('connection', secure);
}

/** The port of a CONNECT target (`host:port`, `[v6]:port`); 443 when none is given. */
function portOf(authority: string): number {
  const m = /:(\d{1,5})$/.exec(authority);
  return m ? Number(m[1]) : 443;
}

/**
 * CONNECT host:port. Known hosts get "200 Connection established", then mockyard itself is the far
 * end: plain HTTP for port 80, TLS with a certificate for that host otherwise.
 */
function onConnect(
  server: Server,
  options: FrontOptions,
  pacer: Pacer,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
): void {
  socket.on('error', () => socket.destroy());
  const authority = req.url ?? '';
  const hostname = hostnameOf(authority);
  if (hostname === '') {
    refuseTunnel(socket, 400, 'CONNECT needs a target of the form host:port.');
    return;
  }
  if (!options.router.match(hostname) && !options.router.isLocal(hostname)) {
    refuseTunnel(socket, 403, refusalMessage(hostname));
    return;
  }
  // Plain HTTP inside the tunnel for port 80 and for mockyard's own plain port (a proxy client that
  // tunnels every request, such as undici's ProxyAgent, calling http://127.0.0.1:PORT); TLS otherwise.
  const port = portOf(authority);
  const address = server.address();
  const ownPort = typeof address === 'object' && address !== null ? address.port : undefined;
  if (port === 80 || (options.router.isLocal(hostname) && port === ownPort)) {
    socket.write('HTTP/1.1 200 Connection established\r\n\r\n');
    if (head.length > 0) socket.unshift(head);
    server.emit('connection', socket);
    return;
  }
  // TLS takes over the socket's handle and would never see bytes already read; a client waits for the
  // 200 before its handshake, so bytes here are not a TLS client.
  if (head.length > 0) {
    refuseTunnel(socket, 400, 'Data was sent before the tunnel was established.');
    return;
  }
  options.ca.contextFor(hostname).then(
    (context) =>
      // One tunnel's TLS set-up per event-loop turn: a burst of CONNECTs never holds the loop (pacer.ts).
      pacer.run(() => {
        if (socket.destroyed) return;
        socket.write('HTTP/1.1 200 Connection established\r\n\r\n');
        serveTls(server, socket, context);
      }),
    (err: Error) =>
      err instanceof CertificateQueueFull
        ? refuseTunnel(socket, 503, `${err.message}.`, 'retry-after: 1\r\n')
        : refuseTunnel(socket, 502, `mockyard could not issue a certificate for ${hostname}: ${err.message}`),
  );
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** An HTTP server with mockyard's server options and the timeouts Fastify sets on servers it makes itself. */
function serverWith(serverOptions: ServerOptions, fastifyOptions: unknown, listener: Listener): Server {
  const server = http.createServer(serverOptions, listener);
  const { keepAliveTimeout, requestTimeout, connectionTimeout } = fastifyOptions as {
    keepAliveTimeout?: number;
    requestTimeout?: number;
    connectionTimeout?: number;
  };
  if (keepAliveTimeout !== undefined) server.keepAliveTimeout = keepAliveTimeout;
  if (requestTimeout !== undefined) server.requestTimeout = requestTimeout;
  if (connectionTimeout !== undefined) server.setTimeout(connectionTimeout);
  // An Expect other than 100-continue: Node's own 417 has an empty body; this one says why, in mockyard's body.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) =>
    answerError(res, 417, `Expect: ${req.headers.expect ?? ''} is not supported; only 100-continue is.`),
  );
  return server;
}

/** Fastify's `serverFactory` without real host names: a plain HTTP server (the area ports, tests). */
export function plainServerFactory(
  serverOptions: ServerOptions,
): (handler: Listener, fastifyOptions: unknown) => Server {
  return (handler, fastifyOptions) => serverWith(serverOptions, fastifyOptions, handler);
}

/** Fastify's `serverFactory`: a plain HTTP server whose request listener routes by host first. */
export function frontServerFactory(options: FrontOptions): (handler: Listener, fastifyOptions: unknown) => Server {
  return (handler, fastifyOptions) => {
    const server = serverWith(options.server, fastifyOptions, (req, res) => {
      if (route(options.router, req, res)) handler(req, res);
    });
    const pacer = new Pacer();
    server.on('connect', (req: IncomingMessage, socket: Duplex, head: Buffer) =>
      onConnect(server, options, pacer, req, socket, head),
    );
    return server;
  };
}

/** The --tls-port listener: TLS with one certificate for every name, then the same HTTP server as the plain port. */
export function tlsFront(httpServer: Server, cert: { cert: string; key: string }): tls.Server {
  const server = tls.createServer({ cert: cert.cert, key: cert.key, ALPNProtocols: ['http/1.1'] }, (socket) => {
    httpServer.emit('connection', socket);
  });
  server.on('tlsClientError', () => {});
  return server;
}
