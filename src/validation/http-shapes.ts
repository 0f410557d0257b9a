import type { getHttpOperationsFromSpec } from '@stoplight/prism-http/dist/utils/operations.js';

// An operation, a request and a response as the validation sees them: the
// shapes every file of src/validation/ shares. operations.ts exports them to
// the rest of the sandbox.

/** One operation of an OpenAPI document, as prism parsed it. */
export type HttpOperation = Awaited<ReturnType<typeof getHttpOperationsFromSpec>>[number];

/** A request as the validator sees it. Header names must be lower case. */
export interface RequestToCheck {
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  headers: Record<string, string>;
  body: unknown;
}

/** A response as the validator sees it. */
export interface ResponseToCheck {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}
