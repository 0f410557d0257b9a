import { ApiError } from '../errors.js';
import type { ControlRun } from './operation.js';

/** POST /go-live/{publicKey}/runs (control-api.yaml startGoLiveRun). */
export const startGoLiveRun: ControlRun = () => {
  throw new ApiError(409, { message: 'go-live runs are not built yet', error: 'CONFLICT' });
};

/** GET /go-live/{publicKey}/runs/{id} (control-api.yaml getGoLiveRun). */
export const getGoLiveRun: ControlRun = () => {
  throw new ApiError(404, { message: 'No such run', error: 'NOT_FOUND' });
};
