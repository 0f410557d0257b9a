import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { BodyStream } from '../api/body.js';
import { renderError } from '../api/error-answer.js';
import { CONTROL_BASE, type ControlCore, type ControlResponse } from '../control/core.js';
import type { EventSink } from '../events/source.js';

/**
 * The control API on node's request and response: what express mounts under
 * `/__sandbox`. It hands the core (src/control/core.ts) the request, its
 * body read only when the core asks, and writes the answer: at once, a piece
 * at a time with the event loop free between pieces (a snapshot), or as a
 * live event stream until the client goes.
 */
export function controlListener(core: ControlCore): (req: IncomingMessage & { originalUrl?: string }, res: ServerResponse) => void {
  return (req, res) => {
    const target = (req.originalUrl ?? req.url ?? '/').slice(CONTROL_BASE.length) || '/';
    const request = { method: req.method ?? 'GET', target, headers: req.headers, body: () => req as unknown as BodyStream };
    core
      .serve(request, 'connection')
      .then((answer) => write(res, answer))
      // serve answers every error; should writing the answer itself fail, the connection is closed.
      .catch(() => req.socket.destroy());
  };
}

async function write(res: ServerResponse, answer: ControlResponse): Promise<void> {
  if (answer.open) return stream(res, answer, answer.open);
  if (!answer.chunks) {
    if (answer.text !== undefined) answer.headers['Content-Length'] = String(Buffer.byteLength(answer.text));
    res.writeHead(answer.status, answer.headers);
    res.end(answer.text);
    return;
  }
  res.writeHead(answer.status, answer.headers);
  const closed = once(res, 'close');
  for (const chunk of answer.chunks) {
    if (res.destroyed) return;
    if (!res.write(chunk)) await Promise.race([once(res, 'drain'), closed]);
    await yieldToLoop();
  }
  res.end();
}

// The live events: headers go with the first bytes, so that a refusal by the subscription can still answer in JSON.
function stream(res: ServerResponse, answer: ControlResponse, open: NonNullable<ControlResponse['open']>): void {
  const sink: EventSink = {
    write: (text) => {
      if (!res.headersSent) {
        res.writeHead(200, { ...answer.headers, 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no', Connection: 'close' });
        res.socket?.setNoDelay(true);
      }
      return res.write(text);
    },
    get pending() {
      return res.writableLength;
    },
    end: () => res.end(),
    destroy: () => res.destroy(),
  };
  try {
    res.once('close', open(sink));
  } catch (error) {
    const rendered = renderError(error);
    res.writeHead(rendered.status, { ...answer.headers, ...rendered.headers, 'Content-Length': String(Buffer.byteLength(rendered.text)) });
    res.end(rendered.text);
  }
}
