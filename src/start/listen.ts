import type { AddressInfo } from 'node:net';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { AllowedHosts } from '../guards/host.js';
import { reapConnections, tolerateTrailingBytes } from '../http/client-errors.js';
import type { TlsListeners } from '../tls/listeners.js';
import { EVERY_INTERFACE, SOCKETLESS_URL, type ConnectionLimits, type SandboxOptions } from './options.js';

/** Where a sandbox is reached: its listeners (none with `listen: false`), its origin and the base of its links. */
export interface Listening {
  /** the HTTP listener; absent with `listen: false` */
  server?: Server;
  /** the address the HTTP listener is bound to (127.0.0.1 without one) */
  address: string;
  /** the origin it listens on, or, without a listener, the one it names itself by */
  url: string;
  /** the base of its links (`--public-url`, or `url`) */
  publicUrl: string;
  /** the HTTPS listener and the proxy, when asked for */
  tls?: TlsListeners;
}

/**
 * Opens the listeners the options ask for, each of which shapes its parser's
 * refusals and bounds its connections alike (README, "Security"), and lets
 * the names they are reached by through the Host guard. Nothing listens with
 * `listen: false`: the url only names the sandbox, for its links and the
 * Host of handle()'s requests.
 * @throws the listener's error (a taken port, an unknown host), or CertificateAuthorityError for HTTPS; nothing is left open then
 */
export async function listenFor(options: SandboxOptions, listener: RequestListener, limits: ConnectionLimits, allowedHosts: AllowedHosts): Promise<Listening> {
  if (options.listen === false) {
    const publicUrl = (options.publicUrl ?? SOCKETLESS_URL).replace(/\/+$/, '');
    allowedHosts.addUrl(publicUrl);
    return { address: '127.0.0.1', url: publicUrl, publicUrl };
  }
  const prepare = (each: Server | HttpsServer) => {
    tolerateTrailingBytes(each);
    reapConnections(each, limits);
  };
  const host = options.host ?? '127.0.0.1';
  // Without a Host, Node would answer its own bodiless 400: the Host guard answers instead, in the API's shape.
  const server = createServer({ requireHostHeader: false }, listener);
  prepare(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const bound = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${bound.port}`;
  // Every interface is no address to hand out: links name this machine, which is what a client here can reach.
  const publicUrl = (options.publicUrl ?? (EVERY_INTERFACE.has(host) ? `http://localhost:${bound.port}` : url)).replace(/\/+$/, '');
  allowedHosts.addListening(host);
  allowedHosts.addUrl(publicUrl);
  if (options.httpsPort === undefined && options.proxyPort === undefined) return { server, address: bound.address, url, publicUrl };
  try {
    // Loaded only when asked for: the certificate code brings a crypto library the plain HTTP sandbox never needs.
    const { startTlsListeners } = await import('../tls/listeners.js');
    const tls = await startTlsListeners(listener, { host, httpsPort: options.httpsPort, proxyPort: options.proxyPort, tlsHosts: options.tlsHosts, caDir: options.caDir, prepare, handshakeTimeoutMs: limits.idleTimeoutMs });
    return { server, address: bound.address, url, publicUrl, tls };
  } catch (error) {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    throw error;
  }
}
