import { ApiError } from '../errors.js';
import { GoLiveRunConflict } from '../go-live/run.js';
import { json, type ControlRun } from './operation.js';

/**
 * POST /go-live/{publicKey}/runs (control-api.yaml startGoLiveRun;
 * docs/decisions.md#d87-go-live-report): 202 `{id, status: "running"}` once
 * the run's payments are stored; its steps are sent after the answer. The
 * registry's `knownMerchant` has refused a merchant the sandbox does not know (404).
 * @throws ApiError 409 CONFLICT when the merchant has no notification URL, or a run of it is still running
 */
export const startGoLiveRun: ControlRun = async (input, { notifications: { goLiveRuns } }) => {
  try {
    return json({ id: await goLiveRuns.start(input.params.publicKey!), status: 'running' }, 202);
  } catch (error) {
    if (error instanceof GoLiveRunConflict) throw new ApiError(409, { message: error.message, error: 'CONFLICT' });
    throw error;
  }
};

/**
 * GET /go-live/{publicKey}/runs/{id} (control-api.yaml getGoLiveRun): the
 * run's steps and results, computed from the store (src/go-live/run-view.ts).
 * @throws ApiError 404 NOT_FOUND when the merchant has no run of that id
 */
export const getGoLiveRun: ControlRun = (input, { notifications: { goLiveRuns } }) => {
  const { publicKey, id } = input.params as { publicKey: string; id: string };
  const run = goLiveRuns.view(publicKey, id);
  if (!run) throw new ApiError(404, { message: `No go-live run ${id} of merchant ${publicKey}`, error: 'NOT_FOUND' });
  return json(run);
};
