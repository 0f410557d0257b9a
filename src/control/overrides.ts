import { ApiError, inputError } from '../errors.js';
import { OverrideLimitError, type OverrideRequest } from '../scenarios/overrides.js';
import { json, noContent, queryText, type ControlRun } from './operation.js';
import { pageAnswer, pageOfSequence, pageRequest } from './paging.js';

// The runs of the override book (openapi/control-api.yaml, tag Overrides; README, "For QA and CI: scenarios, overrides, journal, faults").

/** GET /overrides: a merchant's, or every one; with `withSandboxWide=true`, the sandbox-wide ones too. */
export const listOverrides: ControlRun = (input, { selector: { overrides }, merchantOf }) => {
  const request = pageRequest(input.query);
  const publicKey = merchantOf(input);
  const withGlobal = queryText(input, 'withSandboxWide') === 'true';
  const total = overrides.count(publicKey, withGlobal);
  const page = pageOfSequence('overrides', (after) => overrides.after(after, publicKey, withGlobal), (entry) => entry.sequence, total, request, (entry) => JSON.stringify(entry.override));
  return pageAnswer({ total, limit: request.limit, next: page.next }, 'overrides', page.texts);
};

/** POST /overrides: 201 with the override; 409 when the book is full (the state, not the request, stands in the way). */
export const createOverride: ControlRun = async (input, { selector, store, now }) => {
  const request = input.body as OverrideRequest;
  if (request.scenario !== undefined && !selector.engine.find(request.scenario)) {
    throw inputError(`Unknown scenario ${request.scenario}: GET /__sandbox/scenarios lists them`);
  }
  const override = await store.transaction(() => {
    try {
      return selector.overrides.add(request, now());
    } catch (error) {
      if (error instanceof OverrideLimitError) throw new ApiError(409, { message: error.message, error: 'CONFLICT' });
      throw error;
    }
  });
  return json(override, 201);
};

/** DELETE /overrides: a merchant's, or every one. */
export const deleteOverrides: ControlRun = async (input, { selector, store, merchantOf }) => {
  await store.transaction(() => selector.overrides.clear(merchantOf(input)));
  return noContent();
};

/** DELETE /overrides/{id}. */
export const deleteOverride: ControlRun = async (input, { selector, store }) => {
  const id = input.params.id!;
  const removed = await store.transaction(() => selector.overrides.remove(id));
  if (!removed) throw new ApiError(404, { message: `No override ${id}`, error: 'NOT_FOUND' });
  return noContent();
};
