import { ApiError, inputError } from '../errors.js';
import { FixturesError, type FixturesDocument } from '../known-states/fixtures.js';
import { ResetError, SnapshotError, type SnapshotDocument } from '../known-states/known-states.js';
import { snapshotText } from '../known-states/state.js';
import { restartFacts } from '../go-live/facts.js';
import { json, queryText, type ControlRun } from './operation.js';

// The runs of known states (openapi/control-api.yaml, tag Known states; README, "Known states").

/** POST /reset: a merchant's state, or every one's, back to the baseline (or empty with `to=empty`); 409 CONFLICT when one merchant's baseline holds a key another's record holds now. */
export const resetState: ControlRun = async (input, { knownStates, merchantOf, store, now }) => {
  const publicKey = merchantOf(input);
  try {
    const to = await knownStates.reset(publicKey, queryText(input, 'to') === 'empty');
    // The go-live report starts over with the state (docs/decisions.md#d87-go-live-report).
    await restartFacts(store, publicKey, now());
    return json({ reset: publicKey ?? 'all', to });
  } catch (error) {
    if (error instanceof ResetError) throw new ApiError(409, { message: error.message, error: 'CONFLICT' });
    throw error;
  }
};

/** POST /fixtures: the steps run in order; 400 INPUT naming the step that failed, nothing of the document kept. */
export const loadFixtures: ControlRun = async (input, { knownStates }) => {
  try {
    return json(await knownStates.loadFixtures(input.body as FixturesDocument));
  } catch (error) {
    if (!(error instanceof FixturesError)) throw error;
    return json({ message: error.message, error: 'INPUT', ...(error.step ? { step: error.step } : {}) }, 400);
  }
};

/** GET /snapshot: taken at once, written a piece at a time so that other requests go on. */
export const getSnapshot: ControlRun = (input, { knownStates, now, merchantOf }) => ({
  status: 200,
  type: 'application/json; charset=utf-8',
  chunks: snapshotText(knownStates.take(merchantOf(input)), now()),
});

/** PUT /snapshot: a whole state, or one merchant's. */
export const putSnapshot: ControlRun = async (input, { knownStates, merchantOf }) => {
  const publicKey = merchantOf(input);
  try {
    const payments = await knownStates.loadSnapshot(input.body as SnapshotDocument, publicKey);
    return json({ loaded: publicKey ?? 'all', payments });
  } catch (error) {
    if (error instanceof SnapshotError) throw inputError(error.message);
    throw error;
  }
};
