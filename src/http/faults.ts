import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** How long a hung request is held before its connection is closed: far past any client's timeout. */
export const HANG_LIMIT_MS = 10 * 60 * 1000;

/**
 * The connections held open by `hang`, so that closing the sandbox can end
 * them instead of waiting HANG_LIMIT_MS.
 */
export class HungConnections {
  private readonly sockets = new Set<Socket>();

  /** Holds the request: no answer is sent; the connection closes when the client gives up, the limit passes, or the sandbox closes. */
  hold(req: IncomingMessage): void {
    const socket = req.socket;
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
