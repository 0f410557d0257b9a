import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Server as TlsServer } from 'node:tls';
import type { Duplex } from 'node:stream';
import { tlsHostName } from './host-names.js';

/**
 * The sandbox's forward proxy, for clients whose SDK hard-wires the
 * provider's production host: they keep it, and reach the sandbox by setting
 * HTTPS_PROXY (README, "HTTPS and proxy mode").
 *
 * It reaches nothing but the sandbox itself, and never opens a connection:
 * a CONNECT to a `--tls-host` name is handed, socket and all, to the
 * sandbox's own HTTPS server in this process, and a plain request for one
 * (`GET http://host/...`, or `GET https://host/...` as axios sends through an
 * HTTP proxy) is answered by the sandbox's app. Every other destination is
 * refused with 403.
 *
 * Built on node:http rather than a proxy library: proxy-chain routes a CONNECT
 * to an in-process server cleanly (customConnectServer), but it answers an
 * absolute-form `https://` request with its own 400 before any hook runs, and
 * its custom responses are buffered bodies rather than the response stream
 * the app needs. What is left to do (pick by host, refuse the rest) fits here.
 */

/** What the proxy serves. */
export interface SandboxProxyTarget {
  /** the `--tls-host` names it lets through */
  tlsHosts: readonly string[];
  /** the sandbox's HTTPS server, which takes over tunnelled sockets */
  tlsServer: TlsServer;
  /** the sandbox's app, which answers plain requests */
  app: RequestListener;
}

/** The proxy as a server not yet listening, and a way to end the tunnels it handed over. */
export interface SandboxProxy {
  server: Server;
  /** destroys every tunnel still open, for closing the sandbox */
  destroyTunnels(): void;
}

/**
 * Creates the proxy for `target`; the caller makes it listen.
 * Tunnels are answered `200 Connection Established` and their bytes go to
 * `tlsServer` as a new connection, so the client's TLS handshake meets the
 * sandbox's certificate for the name it asked for.
 */
export function createSandboxProxy(target: SandboxProxyTarget): SandboxProxy {
  const allowed = new Set(target.tlsHosts.map(tlsHostName));
  const tunnels = new Set<Duplex>();
  const refusal = (destination: string) =>
    `payments-sandbox proxy: refused ${destination}; it only reaches the sandbox, as the --tls-host names (${[...allowed].join(', ') || 'none given'})\n`;

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = absoluteUrl(req.url ?? '');
    if (!url || !allowed.has(bareHost(url.hostname))) {
      const body = refusal(url?.host ?? (req.url || '/'));
      res.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(body), 'X-Content-Type-Options': 'nosniff', Connection: 'close' }).end(body);
      return;
    }
    // The app reads the path (req.originalUrl): the request line is given the origin form it would have had.
    req.url = `${url.pathname}${url.search}`;
    target.app(req, res);
  });

  server.on('connect', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Past CONNECT the socket is ours: a client that resets it must not take the sandbox down.
    socket.on('error', () => socket.destroy());
    const destination = req.url ?? '';
    const url = absoluteUrl(`connect://${destination}`);
    if (!url || !url.port || !allowed.has(bareHost(url.hostname))) {
      const body = refusal(destination);
      socket.end(
        `HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
      );
      return;
    }
    tunnels.add(socket);
    socket.once('close', () => tunnels.delete(socket));
    socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    // Bytes the client sent before our answer (an eager ClientHello) belong to the TLS server.
    if (head.length > 0) socket.unshift(head);
    target.tlsServer.emit('connection', socket);
  });

  return {
    server,
    destroyTunnels: () => {
      for (const socket of tunnels) socket.destroy();
      tunnels.clear();
    },
  };
}

function absoluteUrl(text: string): URL | undefined {
  try {
    return /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? new URL(text) : undefined;
  } catch {
    return undefined;
  }
}

// URL keeps an IPv6 host in brackets and a trailing dot as written.
function bareHost(hostname: string): string {
  return hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '').toLowerCase();
}
