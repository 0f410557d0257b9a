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
 * error body (README decision "Bodies on GET").
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
    if (socket.writable && error.code !== 'ECONNRESET') {
      const answer = PARSER_ANSWERS[error.code ?? ''] ?? { status: '400 Bad Request', body: { message: 'Bad Request', error: UNREADABLE } };
      const body = JSON.stringify(answer.body);
      socket.write(`HTTP/1.1 ${answer.status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`);
    }
    socket.destroy(error);
  });
}
