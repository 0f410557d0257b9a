import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KnownStateError, type Sandbox } from '../../../src/index.js';
import { ControlClient } from '../../support/control.js';
import { ApiClient, cardPayment, freshReference, sandboxForTest } from '../../support/sandbox.js';

/**
 * The amounts of a snapshot's payments keep the invariants the state
 * machine keeps (docs/decisions.md#d07-amounts, #d45-zero-amounts-empty-references):
 * decimal strings in major units, an amount above zero, nothing captured
 * beyond the amount and nothing refunded beyond what was charged. A
 * snapshot that breaks one is refused with 400 INPUT naming the payment
 * and the field, and nothing of it is loaded.
 */

const open: Sandbox[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((sandbox) => sandbox.close()));
});

const withoutTime = (snapshot: Record<string, unknown>) => ({ ...snapshot, takenAt: undefined });

/** A sandbox that made one card payment of 1000.00, and its snapshot. */
async function paidOnce() {
  const sandbox = await sandboxForTest();
  open.push(sandbox);
  const api = await ApiClient.for(sandbox);
  const control = await ControlClient.for(sandbox);
  const merchant = await api.merchant();
  const reference = freshReference();
  const paid = await api.as(merchant, 'POST', '/payments/initiates', cardPayment({ paymentReference: reference, amount: '1000.00' }));
  expect(paid.body.data.code).toBe('S20');
  const taken = (await control.send('GET', '/snapshot')).body;
  const [payment] = taken.payments as Array<Record<string, unknown>>;
  expect(payment).toMatchObject({ paymentReference: reference, amount: '1000.00' });
  return { api, control, merchant, reference, taken, payment };
}

const PROBES: Array<[string, Record<string, unknown>, string]> = [
  ['a negative amount', { amount: '-100.00' }, 'amount'],
  ['an amount NaN', { amount: 'NaN' }, 'amount'],
  ['an amount past any number', { amount: '1e309' }, 'amount'],
  ['an amount of zero on an account payment', { amount: '0.00', method: 'ACCOUNT' }, 'amount'],
  ['a refunded amount below zero', { refundedAmount: '-5.00' }, 'refundedAmount'],
  ['more refunded than paid', { refundedAmount: '5000.00' }, 'refundedAmount'],
  ['more captured than the amount', { capturedAmount: '9999.00' }, 'capturedAmount'],
  ['more refunded than captured', { capturedAmount: '100.00', refundedAmount: '200.00' }, 'refundedAmount'],
];

describe('a snapshot whose payment amounts break the invariants', () => {
  it.each(PROBES)('with %s is refused with 400 INPUT naming the payment and the field, and changes nothing', async (_what, change, field) => {
    const { api, control, merchant, reference, taken, payment } = await paidOnce();
    const answer = await control.send('PUT', '/snapshot', { body: { ...taken, payments: [{ ...payment, ...change }] } });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('INPUT');
    expect(answer.body.message).toContain(`/payments/0/${field}`);
    expect(answer.body.message).toContain(reference);
    expect(answer.body.message).toContain(merchant.publicKey);
    expect(withoutTime((await control.send('GET', '/snapshot')).body)).toEqual(withoutTime(taken));
    // The payment is still the one paid: its status query answers, and not with a 500.
    expect((await api.as(merchant, 'GET', `/payments/query/${reference}`)).status).toBe(200);
  });

  it('within the invariants loads: all refunded, a part refunded, a card tokenised for 0.00, a capture refunded', async () => {
    const { control, taken, payment } = await paidOnce();
    for (const change of [{ refundedAmount: '1000.00', status: 'REFUNDED' }, { refundedAmount: '250.5' }, { amount: '0.00' }, { capturedAmount: '400.00', refundedAmount: '400.00' }]) {
      const answer = await control.send('PUT', '/snapshot', { body: { ...taken, payments: [{ ...payment, ...change }] } });
      expect(answer.status, JSON.stringify(change)).toBe(200);
    }
  });

  it('given at start (--snapshot) stops the start with one line naming the file, the payment and the field', async () => {
    const { taken, payment, reference } = await paidOnce();
    const dir = await mkdtemp(join(tmpdir(), 'payments-sandbox-amounts-'));
    try {
      const file = join(dir, 'snapshot.json');
      await writeFile(file, JSON.stringify({ ...taken, payments: [{ ...payment, refundedAmount: '5000.00' }] }));
      const failure = await sandboxForTest({ snapshot: file }).then((sandbox) => { open.push(sandbox); return undefined; }, (error: unknown) => error);
      expect(failure).toBeInstanceOf(KnownStateError);
      const message = (failure as Error).message;
      expect(message.split('\n')).toHaveLength(1);
      expect(message).toContain(`--snapshot ${file}`);
      expect(message).toContain('/payments/0/refundedAmount');
      expect(message).toContain(reference);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
