import type { RequestListener, Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { defaultCaDir, openCertificateAuthority } from './certificate-authority.js';
import { createSandboxProxy } from './sandbox-proxy.js';
import { serverNames } from './host-names.js';
import { issueServerCertificate } from './server-certificate.js';

/**
 * The HTTPS listener and the forward proxy of a sandbox, started beside its
 * HTTP listener and serving the same app (README, "HTTPS and proxy mode").
 */

/** What to start. The HTTPS listener starts when either port is given: the proxy tunnels to it. */
export interface TlsListenerOptions {
  /** interface both listen on, as the HTTP listener */
  host: string;
  /** HTTPS port; 0 a free one; absent with `proxyPort`: a free one */
  httpsPort?: number;
  /** forward proxy port; 0 a free one; absent: no proxy */
  proxyPort?: number;
  /** names the certificate covers beside the loopback ones, and the only ones the proxy reaches */
  tlsHosts?: string[];
  /** the CA folder; default `defaultCaDir()` */
  caDir?: string;
  /** prepares each server before it listens, as the HTTP listener is prepared (the sandbox shapes its parser errors there) */
  prepare?: (server: Server | HttpsServer) => void;
  /** milliseconds a connection may take to finish its TLS handshake (the sandbox's idle time before a first request); Node's own 120 s when absent */
  handshakeTimeoutMs?: number;
}

/** The running listeners. */
export interface TlsListeners {
  httpsServer: HttpsServer;
  /** e.g. https://127.0.0.1:4443 */
  httpsUrl: string;
  proxyServer?: Server;
  /** e.g. http://127.0.0.1:4080 */
  proxyUrl?: string;
  /** the CA certificate file clients are told to trust */
  caCertificate: string;
  /** stops both listeners, ends the proxy's tunnels, and lets requests in flight finish */
  close(): Promise<void>;
}

/**
 * Opens (or creates) the local CA, issues a certificate for the loopback
 * names and `tlsHosts`, and starts the HTTPS listener and, with `proxyPort`,
 * the proxy. Nothing is left listening when it throws.
 * @throws CertificateAuthorityError when the CA folder cannot be used; Error when a
 *   `tlsHosts` name is not a host name, or a port cannot be listened on.
 */
export async function startTlsListeners(app: RequestListener, options: TlsListenerOptions): Promise<TlsListeners> {
  const tlsHosts = options.tlsHosts ?? [];
  const names = serverNames(tlsHosts);
  const ca = await openCertificateAuthority(options.caDir ?? defaultCaDir());
  // As the HTTP listener: a request without Host is answered by the app, in the API's shape.
  const httpsServer = createHttpsServer({ ...(await issueServerCertificate(ca, names)), requireHostHeader: false, handshakeTimeout: options.handshakeTimeoutMs }, app);
  // Both answer the Payments API as the HTTP listener does, the SDK's GET-with-a-body included.
  options.prepare?.(httpsServer);
  const httpsPort = await listen(httpsServer, options.httpsPort ?? 0, options.host);
  const proxy = options.proxyPort === undefined ? undefined : createSandboxProxy({ tlsHosts, tlsServer: httpsServer, app });
  let proxyPort: number | undefined;
  if (proxy) {
    options.prepare?.(proxy.server);
    try {
      proxyPort = await listen(proxy.server, options.proxyPort!, options.host);
    } catch (error) {
      await stop(httpsServer);
      throw error;
    }
  }
  return {
    httpsServer,
    httpsUrl: origin('https', options.host, httpsPort),
    proxyServer: proxy?.server,
    proxyUrl: proxyPort === undefined ? undefined : origin('http', options.host, proxyPort),
    caCertificate: ca.certificatePath,
    close: async () => {
      proxy?.destroyTunnels();
      await Promise.all([stop(httpsServer), proxy ? stop(proxy.server) : undefined]);
    },
  };
}

async function listen(server: Server | HttpsServer, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

// As the HTTP listener closes: no new connections, idle ones ended, requests in flight answered.
function stop(server: Server | HttpsServer): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}

function origin(scheme: 'http' | 'https', host: string, port: number): string {
  return `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
