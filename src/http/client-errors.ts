import type { Server as HttpServer, IncomingMessage, ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import { UNREADABLE } from '../errors.js';

/**
 * What a server says when Node's own HTTP parser cannot read a request, before
 * express sees it, in the spec's error body (spec, Errors > HTTP-level errors).
 */
const PARSER_ANSWERS: Record<string, { status: string; body: { message: string; error: string } }> = {
  HPE_HEADER_OVERFLOW: { status: '431 Request Header Fields Too Large', body: { message: 'Request Header Fields Too Large', error: 'The request headers are larger than the server reads' } },
  ERR_HTTP_REQUEST_TIMEOUT: { status: '408 Request Timeout', body: { message: 'Request Timeout', error: 'The request was not received in time' } },
};

/**
 * Shapes what Node's HTTP parser refuses, and keeps it from overtaking a
 * request already being answered on the same connection. The provider's Node
 * SDK sends GET requests with a JSON body but no Content-Length and
 * `Connection: close`: HTTP/1.1 reads those bytes as the start of a second
 * request, which cannot be parsed. Node's default would write a bare 400 at
 * once and close the connection, so the client read that 400 instead of its
 * answer. Here the unreadable bytes are ignored while a response is under way
 * (the connection is closed after it), and otherwise answered with the spec's
 * error body (docs/decisions.md#d21-json-bodies).
 */
export function tolerateTrailingBytes(server: HttpServer | HttpsServer): void {
  const answering = new WeakMap<Socket, { req: IncomingMessage; res: ServerResponse }>();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    answering.set(req.socket, { req, res });
    res.once('close', () => {
      if (answering.get(req.socket)?.res === res) answering.delete(req.socket);
    });
  });
  // An `Expect` Node does not know: its own 417 has no body.
  server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => {
    const body = JSON.stringify({ message: 'Expectation Failed', error: 'The Expect header names nothing this server does' });
    res.writeHead(417, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), 'X-Content-Type-Options': 'nosniff', Connection: 'close' }).end(body);
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    const pending = answering.get(socket);
    // Bytes after a request whose body is complete belong to no request the client
    // meant: answer the one in hand, then hang up. A body that is itself unreadable
    // (a broken chunk) is this request's own error, answered below.
    if (pending && pending.req.complete && !pending.res.writableFinished) {
      socket.pause();
      pending.res.once('finish', () => socket.end());
      return;
    }
    if (pending?.res.headersSent) return void socket.destroy(error);
    if (socket.writable && error.code !== 'ECONNRESET') writeAnswer(socket, PARSER_ANSWERS[error.code ?? ''] ?? { status: '400 Bad Request', body: { message: 'Bad Request', error: UNREADABLE } });
    socket.destroy(error);
  });
}

// An answer written on the socket itself, where no response object exists (yet): the spec's error body, then the connection closes.
function writeAnswer(socket: Socket, answer: { status: string; body: { message: string; error: string } }): void {
  const body = JSON.stringify(answer.body);
  socket.write(`HTTP/1.1 ${answer.status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`);
}

/** How long a connection may stay silent before its first request when `idleTimeoutMs` is not given: 30 s (README, "Security"). */
export const DEFAULT_IDLE_TIMEOUT_MS = 30_000;

/** How many connections a listener holds open at once when `maxConnections` is not given (README, "Security"). */
export const DEFAULT_MAX_CONNECTIONS = 2000;

/** How long Node keeps a connection open between two requests (its own `keepAliveTimeout` default). */
const KEEP_ALIVE_MS = 5000;

/** The bounds on a listener's connections. */
export interface ConnectionLimits {
  /** milliseconds a connection may stay silent before its first request; between requests, the shorter of this and 5 s */
  idleTimeoutMs: number;
  /** connections held open at once; one more is closed as soon as it is accepted */
  maxConnections: number;
}

/**
 * Closes the connections that hold a listener's resources without using them
 * (README, "Security"). Node 20 closes a connection that starts a request and
 * never finishes its headers (`headersTimeout`, answered 408 above), and one
 * idle between two requests (`keepAliveTimeout`), but never one that sends
 * nothing at all. Here:
 * - a connection silent for `idleTimeoutMs` before its first request is
 *   closed; one that sent part of a request is answered 408 in the spec's
 *   error body first, as a slow one is;
 * - between requests, Node's keep-alive closes it after 5 s, or after
 *   `idleTimeoutMs` when that is shorter; keep-alive clients are unaffected;
 * - a request in hand is never timed out here: delays and hung connections
 *   (src/http/faults.ts) keep their own bounds;
 * - beyond `maxConnections` open at once, a new connection is closed as soon
 *   as it is accepted (Node's `server.maxConnections`), and the listener keeps
 *   serving the others.
 * On an HTTPS listener the clock starts once the TLS handshake is done (the
 * handshake itself has Node's 120 s bound). The server's `timeout` event is
 * handled here: `server.setTimeout` must not be used beside it.
 */
export function reapConnections(server: HttpServer | HttpsServer, limits: ConnectionLimits): void {
  server.maxConnections = limits.maxConnections;
  server.keepAliveTimeout = Math.min(KEEP_ALIVE_MS, limits.idleTimeoutMs);
  // Connections that have not yet made a request, with the bytes they had read when they became HTTP (TLS reads its handshake first).
  const fresh = new WeakMap<Socket, number>();
  const watch = (socket: Socket) => {
    fresh.set(socket, socket.bytesRead);
    socket.setTimeout(limits.idleTimeoutMs);
  };
  // An HTTPS server's sockets speak HTTP once secure; tunnels from the proxy arrive the same way.
  server.on('setSecureContext' in server ? 'secureConnection' : 'connection', watch);
  server.on('request', (req: IncomingMessage) => {
    const socket = req.socket;
    // Only a first request finds the idle timeout set: Node clears its keep-alive one itself before a later request.
    if (socket.timeout) {
      socket.setTimeout(0);
      fresh.delete(socket);
    }
  });
  // Emitted by Node for a connection silent past its timeout: with this listener, closing it is ours to do.
  server.on('timeout', (socket: Socket) => {
    const before = fresh.get(socket);
    if (before !== undefined && socket.bytesRead > before && socket.writable) writeAnswer(socket, PARSER_ANSWERS.ERR_HTTP_REQUEST_TIMEOUT!);
    socket.destroy();
  });
}
