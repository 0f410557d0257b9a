import { createServer, request as sendRequest, type IncomingHttpHeaders, type RequestListener } from 'node:http';
import { Duplex } from 'node:stream';

/**
 * HTTP over a connection in memory: node's own server parses the request
 * and writes the answer, node's own client writes the request and parses
 * the answer, and the bytes go through a pair of streams instead of a
 * socket. No port is opened and no library's request or response is
 * imitated: what express serves (the pages, their static files) answers
 * `Sandbox.handle()` exactly as it answers a connection. The server's
 * "connection" event taking any duplex stream, and the client's
 * `createConnection`, are node's documented ways in.
 */
export function inMemoryHttp(listener: RequestListener): (request: InMemoryRequest) => Promise<InMemoryAnswer> {
  // Without a Host, node would answer its own bodiless 400: the listener answers instead, as on a real connection.
  const server = createServer({ requireHostHeader: false }, listener);
  return (request) =>
    new Promise((resolve, reject) => {
      const [client, served] = streamPair();
      server.emit('connection', served);
      const sent = sendRequest({ method: request.method, path: request.url, headers: request.headers, createConnection: () => client as never });
      sent.once('error', reject);
      sent.once('response', (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.once('error', reject);
        answer.once('end', () => {
          resolve({ status: answer.statusCode ?? 0, headers: answer.headers, body: Buffer.concat(chunks) });
          client.destroy();
          served.destroy();
        });
      });
      sent.end(request.body);
    });
}

/** A request written on the connection: method, target, headers (with Host), and the body's bytes. */
export interface InMemoryRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body?: Buffer;
}

/** An answer as node's client read it: status, headers (lower-case names), body. */
export interface InMemoryAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

// Two ends of one connection: what one writes, the other reads.
function streamPair(): [Duplex, Duplex] {
  const ends: Duplex[] = [];
  const end = (other: () => Duplex) =>
    new Duplex({
      read() {},
      write(chunk: Buffer, _encoding, done) {
        other().push(chunk);
        done();
      },
      final(done) {
        other().push(null);
        done();
      },
    });
  ends.push(end(() => ends[1]!), end(() => ends[0]!));
  return [ends[0]!, ends[1]!];
}
