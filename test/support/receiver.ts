import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SandboxOptions } from '../../src/index.js';
import { ControlClient } from './control.js';
import { sandboxWithMerchant } from './sandbox.js';

/** One request a receiver got. */
export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** the body as sent */
  raw: string;
  /** the body read as JSON; undefined when it is not JSON */
  body: any;
  /** the item: body.notificationItems[0].notificationRequestItem */
  item: { eventType: string; eventDate: string; eventId: string; data: Record<string, unknown> };
}

/** How a receiver answers one notification: a status and a body, after a delay. */
export interface ReceiverAnswer {
  status: number;
  body?: string;
  delayMs?: number;
}

/** Answers as the provider's current page asks: 200 with the header's reference echoed and status "received". */
export const acknowledge = (headers: IncomingHttpHeaders): ReceiverAnswer => ({
  status: 200,
  body: JSON.stringify({ ackReference: headers['x-expected-ack-reference'], status: 'received' }),
});

/** What the provider's own Odoo plugin answers: 200 `{"status":"success","message":"Processed"}`, with no ackReference. */
export const odooAnswer = (): ReceiverAnswer => ({ status: 200, body: JSON.stringify({ status: 'success', message: 'Processed' }) });

/**
 * A merchant's notification receiver on 127.0.0.1: a real HTTP server that
 * records every POST and answers as `answer` says (by default, it acknowledges).
 */
export class Receiver {
  readonly received: Received[] = [];
  answer: (headers: IncomingHttpHeaders, count: number) => ReceiverAnswer = acknowledge;

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(answer?: Receiver['answer']): Promise<Receiver> {
    let receiver: Receiver | undefined;
    const server = createServer((req, res) => {
      let raw = '';
      req.setEncoding('utf8').on('data', (chunk: string) => (raw += chunk));
      req.on('end', () => {
        let body: any;
        try {
          body = JSON.parse(raw);
        } catch {
          body = undefined;
        }
        receiver!.received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, raw, body, item: body?.notificationItems?.[0]?.notificationRequestItem });
        const answered = receiver!.answer(req.headers, receiver!.received.length);
        const send = () => {
          if (res.destroyed) return;
          res.writeHead(answered.status, { 'content-type': 'application/json' }).end(answered.body ?? '');
        };
        if (answered.delayMs) setTimeout(send, answered.delayMs);
        else send();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver = new Receiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`);
    if (answer) receiver.answer = answer;
    return receiver;
  }

  /** The events received (each request's `notificationItems[].notificationRequestItem`), with the request they came in. */
  events(): Array<{ event: any; request: Received }> {
    return this.received.flatMap((request) => ((request.body?.notificationItems ?? []) as any[]).map((item) => ({ event: item?.notificationRequestItem, request })));
  }

  /** The items received for one payment, in arrival order. */
  of(paymentReference: string): Received['item'][] {
    return this.received.map((got) => got.item).filter((item) => item.data.reference === paymentReference || item.data.transactionRef === paymentReference);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * A sandbox with one merchant whose notification URL is a new receiver's
 * (set over the control API); `close()` stops both. `options` are the
 * sandbox's (`listen: true` for one on a port).
 */
export async function sandboxWithReceiver(options: SandboxOptions = {}): Promise<Awaited<ReturnType<typeof sandboxWithMerchant>> & { receiver: Receiver; close(): Promise<void> }> {
  const setup = await sandboxWithMerchant(options);
  const receiver = await Receiver.start();
  const control = await ControlClient.for(setup.sandbox);
  const answer = await control.send('PUT', `/webhooks/${setup.merchant.publicKey}`, { body: { url: receiver.url } });
  if (answer.status !== 200) throw new Error(`the notification URL was refused: ${answer.status}`);
  return { ...setup, receiver, close: async () => { await setup.sandbox.close(); await receiver.close(); } };
}
