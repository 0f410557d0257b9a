import { afterEach, describe, expect, it } from 'vitest';
import { banner, run, stopAll, TIMEOUT } from '../support/process.js';
import { PaymentsApi } from './support/api.js';
import { finishedPayment } from './support/finished-payment.js';

/**
 * A rule forced for the whole sandbox by the executable's `--scenario`
 * chooses an outcome, never past the state machine: initiating again a
 * payment that is finished answers S18, and it stays as it was. The same
 * by header, by override and by `startSandbox({scenario})`, for every
 * initiate rule of the catalogue: test/unit/scenarios/forced-rules.test.ts.
 */

describe('a rule forced on the whole sandbox', () => {
  afterEach(async () => {
    await stopAll();
  });

  it('payments-sandbox --scenario account-pending: initiating a SUCCESSFUL payment again answers S18 and leaves it SUCCESSFUL', { timeout: TIMEOUT }, async () => {
    const shown = await banner(run(['--port', '0', '--in-memory', '--scenario', 'account-pending']));
    const api = await PaymentsApi.as(shown.origin);
    const { body, stored } = await finishedPayment(api, 'ACCOUNT');
    const again = await api.initiate(body);
    expect(again.body?.data?.code, JSON.stringify(again.body)).toBe('S18');
    expect(await api.payment(String(body.paymentReference))).toEqual(stored);
  });
});
