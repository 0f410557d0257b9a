import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Delay, Fault } from '../scenarios/scenario.js';
import type { ApiExchange } from './exchange.js';

/** How long a hung request is held before its connection is closed: far past any client's timeout. */
export const HANG_LIMIT_MS = 10 * 60 * 1000;

/** Milliseconds of a delay; a range is drawn with `random` (seeded by --seed). */
export function delayMs(delay: Delay | undefined, random: () => number): number {
  if (!delay) return 0;
  if ('ms' in delay) return delay.ms;
  return Math.round(delay.minMs + (delay.maxMs - delay.minMs) * random());
}

/** Waits `ms` milliseconds. */
export const pause = (ms: number): Promise<void> => (ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve());

/**
 * The connections held open by `hang`, so that closing the sandbox can end
 * them instead of waiting HANG_LIMIT_MS.
 */
export class HungConnections {
  private readonly sockets = new Set<Socket>();

  /** Holds the request: no answer is sent; the connection closes when the client gives up, the limit passes, or the sandbox closes. */
  hold(req: IncomingMessage, exchange: ApiExchange, fault: Fault): void {
    exchange.fault = fault;
    const socket = req.socket;
    // A request served without a socket (Sandbox.handle) has no client to wait for: it is let go of at once.
    if ((socket as Socket & { socketless?: boolean }).socketless) return void socket.destroy();
    this.sockets.add(socket);
    const timer = setTimeout(() => socket.destroy(), HANG_LIMIT_MS);
    socket.once('close', () => {
      clearTimeout(timer);
      this.sockets.delete(socket);
    });
  }

  /** Ends every held connection. */
  releaseAll(): void {
    for (const socket of this.sockets) socket.destroy();
  }
}

/** Closes the connection without an answer (drop-connection, lose-response). */
export function dropConnection(req: IncomingMessage, exchange: ApiExchange, fault: Fault): void {
  exchange.fault = fault;
  req.socket.destroy();
}
