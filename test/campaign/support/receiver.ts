import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A merchant's notification receiver for the campaign: a real HTTP server on
 * 127.0.0.1 that records every notification it gets (before it answers, so
 * that an event whose answer was cut off by a crash still counts as
 * received), and answers as its `mode` says: at once with the
 * acknowledgement the provider's current page asks for, after a delay (a
 * slow receiver: the sandbox's attempt is still in flight), or with an
 * error. Also a port that nothing listens on, for a receiver that is down.
 */

/** One notification as the receiver got it. */
export interface ReceivedEvent {
  eventType: string;
  eventId: string;
  /** `data.reference` of the event: the payment's paymentReference */
  paymentReference: string;
  /** `data.code` of the event: 00 for a success */
  code: string;
  /** the X-Expected-Ack-Reference header it came with */
  ackReference: string;
  /** real time it arrived, epoch ms */
  at: number;
}

/** How the receiver answers: at once with the acknowledgement, after `delayMs` with it, or with `status`. */
export type ReceiverMode = { kind: 'acknowledge' } | { kind: 'slow'; delayMs: number } | { kind: 'error'; status: number };

/** A port on 127.0.0.1 that nothing listens on (one was just given by the system and let go). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A notification receiver on 127.0.0.1; `start()` makes one. */
export class CampaignReceiver {
  /** every notification received, in arrival order */
  readonly received: ReceivedEvent[] = [];
  /** bodies that were not a notification in the provider's shape, as text (at most 500 characters each) */
  readonly malformed: string[] = [];
  mode: ReceiverMode = { kind: 'acknowledge' };
  /** called with each notification as it is recorded, before it is answered */
  onEvent: ((event: ReceivedEvent) => void) | undefined;
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    /** the URL to give the sandbox */
    readonly url: string,
  ) {}

  /** Starts a receiver on a free port of 127.0.0.1, answering as `mode` says. */
  static async start(mode: ReceiverMode = { kind: 'acknowledge' }): Promise<CampaignReceiver> {
    let receiver: CampaignReceiver | undefined;
    const server = createServer((req, res) => {
      res.on('error', () => undefined);
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('error', () => undefined);
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const ackReference = String(req.headers['x-expected-ack-reference'] ?? '');
        let item: any;
        try {
          item = JSON.parse(text)?.notificationItems?.[0]?.notificationRequestItem;
        } catch {
          item = undefined;
        }
        if (typeof item?.eventId !== 'string' || typeof item?.eventType !== 'string') {
          receiver!.malformed.push(text.slice(0, 500));
          res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"not a notification"}');
          return;
        }
        const event: ReceivedEvent = { eventType: item.eventType, eventId: item.eventId, paymentReference: String(item.data?.reference ?? ''), code: String(item.data?.code ?? ''), ackReference, at: Date.now() };
        receiver!.received.push(event);
        receiver!.onEvent?.(event);
        const mode = receiver!.mode;
        const answer = () => {
          if (res.destroyed || res.writableEnded) return;
          if (mode.kind === 'error') res.writeHead(mode.status, { 'content-type': 'application/json' }).end('{"error":"receiver error"}');
          else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ackReference, status: 'received' }));
        };
        if (mode.kind === 'slow') setTimeout(answer, mode.delayMs).unref();
        else answer();
      });
    });
    server.on('connection', (socket: Socket) => {
      receiver?.sockets.add(socket);
      socket.on('close', () => receiver?.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver = new CampaignReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`);
    receiver.mode = mode;
    return receiver;
  }

  /** The events received for each paymentReference, in arrival order. */
  byReference(): Map<string, ReceivedEvent[]> {
    const found = new Map<string, ReceivedEvent[]>();
    for (const event of this.received) {
      const list = found.get(event.paymentReference) ?? [];
      list.push(event);
      found.set(event.paymentReference, list);
    }
    return found;
  }

  /** Stops listening and drops every connection. */
  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
