import express, { type RequestHandler } from 'express';
import type { BodyStream } from '../api/body.js';
import { ApiError, inputError } from '../errors.js';
import { mediaTypeOf } from '../guards/media-type.js';
import { FixturesError, parseFixturesText } from '../known-states/fixtures.js';
import { YAML_TYPES } from './guards.js';
import type { ControlBody } from './operation.js';

/** The largest body PUT /snapshot reads (docs/known-states.md, "Bounds"): far beyond the states a test sets up, within what one JSON.parse can take. */
export const SNAPSHOT_BODY_LIMIT = '256mb';
/** The largest fixtures document POST /fixtures reads. */
export const FIXTURES_BODY_LIMIT = '16mb';
/** The largest body of every other control operation: a few fields. */
export const SMALL_BODY_LIMIT = '100kb';

const LIMITS: Record<ControlBody, string> = { small: SMALL_BODY_LIMIT, snapshot: SNAPSHOT_BODY_LIMIT, fixtures: FIXTURES_BODY_LIMIT };

// Every method's body is read but a GET's, a HEAD's and a bodiless DELETE's; the guards checked the media type before.
const reads = (req: { method?: string }) => !['GET', 'HEAD'].includes(req.method ?? '');
const jsonUpTo = (limit: string): RequestHandler => express.json({ limit, type: reads });
const JSON_PARSERS: Record<ControlBody, RequestHandler> = { small: jsonUpTo(LIMITS.small), snapshot: jsonUpTo(LIMITS.snapshot), fixtures: jsonUpTo(LIMITS.fixtures) };
const YAML_PARSER = express.text({ limit: FIXTURES_BODY_LIMIT, type: reads });

/**
 * Reads a control request's body, once, up to its operation's limit: JSON,
 * or, for a fixtures document sent as `application/yaml`, YAML with the
 * bounds of a fixtures file (known-states/fixtures.ts, parseFixturesText).
 * @returns the body as parsed; undefined when none was sent
 * @throws ApiError 413 INPUT naming the limits beyond them; 400 INPUT for a body that cannot be read
 */
export async function readControlBody(stream: BodyStream, limit: ControlBody): Promise<unknown> {
  const yaml = limit === 'fixtures' && YAML_TYPES.has(mediaTypeOf(stream.headers['content-type']) ?? '');
  try {
    const body = await parsed(stream, yaml ? YAML_PARSER : JSON_PARSERS[limit]);
    if (!yaml || typeof body !== 'string') return body;
    return await parseFixturesText(body);
  } catch (error) {
    throw unreadable(error);
  }
}

function parsed(stream: BodyStream, parser: RequestHandler): Promise<unknown> {
  return new Promise((resolve, reject) => {
    // body-parser is typed for express, but reads only what a request stream has; it never writes to the response.
    void parser(stream as never, undefined as never, (error?: unknown) => (error ? reject(error) : resolve(stream.body)));
  });
}

// A body that cannot be read is an INPUT error in the control API's categories.
function unreadable(error: unknown): unknown {
  if (error instanceof ApiError) return error;
  if (error instanceof FixturesError) return inputError(error.message);
  const status = (error as { status?: unknown }).status;
  if (status === 413) return new ApiError(413, { message: `${(error as Error).message}: the control API reads bodies up to ${SMALL_BODY_LIMIT}, a snapshot up to ${SNAPSHOT_BODY_LIMIT}, fixtures up to ${FIXTURES_BODY_LIMIT}`, error: 'INPUT' });
  if (typeof status === 'number' && status >= 400 && status < 500) return inputError((error as Error).message);
  return error;
}
