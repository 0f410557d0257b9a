import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A merchant's notification receiver on 127.0.0.1, as a merchant runs one:
 * a real HTTP server that records every request (method, path, headers, the
 * body as sent and as JSON) and answers each with what `answer` says.
 */

/** One request the receiver got. */
export interface ReceivedNotification {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** the body as sent */
  raw: string;
  /** the body read as JSON; undefined when it is not JSON */
  body: any;
}

/** The receiver's answer to one request: status and JSON body. */
export interface ReceiverAnswer {
  status: number;
  body: unknown;
}

/** How the receiver answers a request it has recorded. */
export type Answerer = (received: ReceivedNotification) => ReceiverAnswer;

/** The acknowledgement the provider's webhook page asks for: 200 `{"ackReference": <the header, exactly>, "status": "received"}`. */
export const acknowledge: Answerer = (received) => ({
  status: 200,
  body: { ackReference: received.headers['x-expected-ack-reference'], status: 'received' },
});

/** What the provider's own Odoo plugin answers: 200 `{"status": "success"}`, with no ackReference. */
export const odooAnswer: Answerer = () => ({ status: 200, body: { status: 'success' } });

export class Receiver {
  /** every request, in the order they came */
  readonly received: ReceivedNotification[] = [];

  private constructor(
    private readonly server: Server,
    /** e.g. http://127.0.0.1:41234 */
    readonly origin: string,
  ) {}

  /** Starts a receiver on a free port of 127.0.0.1. */
  static async start(answer: Answerer): Promise<Receiver> {
    let receiver: Receiver | undefined;
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = JSON.parse(raw);
        } catch {
          body = undefined;
        }
        const received: ReceivedNotification = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, raw, body };
        receiver!.received.push(received);
        const reply = answer(received);
        res.writeHead(reply.status, { 'Content-Type': 'application/json' }).end(JSON.stringify(reply.body));
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    receiver = new Receiver(server, `http://127.0.0.1:${port}`);
    return receiver;
  }

  /** The notification URL to give the sandbox. */
  get url(): string {
    return `${this.origin}/webhook`;
  }

  /** The events received (each request's `notificationItems[].notificationRequestItem`), with the request they came in. */
  events(): Array<{ event: any; request: ReceivedNotification }> {
    return this.received.flatMap((request) =>
      ((request.body?.notificationItems ?? []) as any[]).map((item) => ({ event: item?.notificationRequestItem, request })),
    );
  }

  /** Stops listening and drops the sandbox's kept-alive connections. */
  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}
