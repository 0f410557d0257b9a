import { EventEmitter } from 'node:events';
import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import express, { type RequestHandler } from 'express';

/**
 * Reading a Payments API body: as JSON whatever the Content-Type says (the
 * core refuses a type that does not declare JSON before), by body-parser,
 * whose answers to what it cannot read (400, 413, 415) are the API's. The
 * bytes are kept so that a number sent where the spec wants a string is
 * read exactly (src/validation/leniency.ts).
 */

/** How much a body may hold: `merchant`, up to 1 MB (docs/decisions.md#d21-json-bodies); `stranger`, up to 64 KB. */
export type BodyLimit = 'merchant' | 'stranger';

/** A body as read: parsed (undefined when the request had none, or its method's body is ignored), and its bytes. */
export interface JsonBody {
  body: unknown;
  raw: Buffer | undefined;
}

/**
 * Reads a request's body, once, up to `limit`.
 * @throws the parser's errors, with the status to answer (`status`: 400, 413 with `limit`, 415)
 */
export type BodyReader = (limit: BodyLimit) => Promise<JsonBody>;

/** Methods whose body is ignored: clients such as the provider's Node SDK send one on GET (docs/decisions.md#d21-json-bodies). */
export const BODYLESS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'DELETE']);

/** A request stream body-parser reads: node's request, or bytes in memory (bytesReader). */
export type BodyStream = NodeJS.ReadableStream & { headers: IncomingHttpHeaders; method?: string; body?: unknown };

const RAW = Symbol('the bytes of the body');

function bodyOfUpTo(limit: string): RequestHandler {
  return express.json({
    type: (req) => !BODYLESS.has(req.method ?? ''),
    limit,
    verify: (req, _res, buffer) => {
      (req as unknown as Record<symbol, Buffer>)[RAW] = buffer;
    },
  });
}

/**
 * The parsers of each limit: a merchant's body, up to 1 MB; the body of a
 * request no credentials vouch for (the key exchange, the hash endpoint
 * without a token), up to 64 KB, far more than a key pair or a checkout
 * payload, so that strangers cannot make the sandbox read megabytes.
 */
const PARSERS: Record<BodyLimit, RequestHandler> = { merchant: bodyOfUpTo('1mb'), stranger: bodyOfUpTo('64kb') };

/**
 * Reads the body of a request stream (node's request, as it arrives) with
 * body-parser, as express.json reads it.
 * @throws (rejects with) body-parser's errors
 */
export function readJson(stream: BodyStream, limit: BodyLimit): Promise<JsonBody> {
  return new Promise((resolve, reject) => {
    // body-parser is typed for express, but reads only what a request stream has; it never writes to the response.
    void PARSERS[limit](stream as never, undefined as never, (error?: unknown) =>
      error ? reject(error) : resolve({ body: stream.body, raw: (stream as unknown as Record<symbol, Buffer | undefined>)[RAW] }),
    );
  });
}

/**
 * The body reader of a request whose bytes are all in memory
 * (`Sandbox.handle()`): read by the same parser as a request from a socket,
 * so that it answers the same to the same bytes.
 */
export function bytesReader(method: string, headers: IncomingHttpHeaders, bytes: Buffer | undefined): BodyReader {
  return (limit) => readJson(bytesStream(method, headers, bytes), limit);
}

/** Bytes in memory as a request stream that body-parser reads as it reads node's request. */
export function bytesStream(method: string, headers: IncomingHttpHeaders, bytes: Buffer | undefined): BodyStream {
  return new BytesRequest(method, headers, bytes);
}

/**
 * Bytes in memory as a request stream: body-parser reads a request only
 * while it is not finished (on-finished: `complete` false and a readable
 * `socket`), and drains it with `resume()` after an error.
 */
class BytesRequest extends Readable {
  readonly complete = false;
  readonly socket = Object.assign(new EventEmitter(), { readable: true });
  body?: unknown;

  constructor(
    readonly method: string,
    readonly headers: IncomingHttpHeaders,
    private bytes: Buffer | undefined,
  ) {
    super();
  }

  override _read(): void {
    if (this.bytes !== undefined && this.bytes.length > 0) this.push(this.bytes);
    this.bytes = undefined;
    this.push(null);
  }
}
