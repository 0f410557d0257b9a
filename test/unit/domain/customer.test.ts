import { describe, expect, it } from 'vitest';
import {
  cancelByCustomer, completeCardAuthentication, payByAccount, payByCard, payByTransfer, transferSent, type CustomerContext, type CustomerStep,
} from '../../../src/domain/customer.js';
import { transferAccountOf } from '../../../src/domain/payments.js';
import type { Payment, PaymentStatus } from '../../../src/model/records.js';
import { ENGINE, NOW, newStore, onePayment, payment, untouched } from './fixtures.js';

/**
 * The customer's steps on the sandbox's pages (README, "Pages"): each is
 * decided by the shipped catalogue, goes through the state machine, and
 * returns the next page and the write; none stores anything itself.
 */

const context = async (): Promise<CustomerContext> => ({ store: await newStore(), engine: ENGINE, now: () => NOW });

/** A pending hosted checkout, put in the context's store. */
const checkout = (ctx: CustomerContext, fields: Partial<Payment> = {}): Payment =>
  payment({ paymentReference: 'SBREF-PAGE-1', method: 'CHECKOUT', status: 'PENDING', code: '00', message: 'Successful', card: undefined, scenario: 'checkout-link-created', fullName: 'Ada Obi', ...fields }, ctx.store);

/** The step's next page, and the status, code, message and rule of what it writes. */
const outcome = (step: CustomerStep) => {
  const { status, code, message, scenario } = onePayment(step);
  return { next: step.next, status, code, message, scenario };
};

describe('payByCard', () => {
  it('a declining card (4000000000000002): card-declined fails it at once, and the customer goes back', async () => {
    const ctx = await context();
    const before = checkout(ctx);
    const step = untouched(ctx.store, () => payByCard(ctx, before, '4000000000000002'));
    expect(outcome(step)).toEqual({ next: 'return', status: 'FAILED', code: 'S12', message: 'Transaction Failed', scenario: 'card-declined' });
    expect(onePayment(step)).toMatchObject({ channel: 'CARD', card: { bin: '400000', last4: '0002' }, method: 'CHECKOUT', updatedAt: NOW });
    expect(step.payment).toBe(onePayment(step));
    expect(JSON.stringify(step.writes)).not.toContain('4000000000000002');
  });

  it('any other card asks for authentication (S20), the card kept as BIN and last four', async () => {
    const ctx = await context();
    const step = payByCard(ctx, checkout(ctx), '5123450000000008');
    expect(outcome(step)).toEqual({ next: 'authenticate', status: 'PENDING', code: 'S20', message: 'Transaction is pending', scenario: 'card-succeeds-after-authentication' });
    expect(onePayment(step).card).toEqual({ bin: '512345', last4: '0008', token: expect.stringMatching(/^SBCTK_/) });
  });
});

describe('the other steps', () => {
  it('payByAccount: checkout-account-chosen, and the OTP step next', async () => {
    const ctx = await context();
    const before = checkout(ctx);
    const step = untouched(ctx.store, () => payByAccount(ctx, before));
    expect(outcome(step)).toEqual({ next: 'otp', status: 'PENDING', code: '20', message: 'Transaction is pending', scenario: 'checkout-account-chosen' });
    expect(onePayment(step).channel).toBe('ACCOUNT');
  });

  it('payByTransfer: checkout-transfer-chosen, the account to pay into, and the transfer step next', async () => {
    const ctx = await context();
    const before = checkout(ctx);
    const step = untouched(ctx.store, () => payByTransfer(ctx, before));
    expect(outcome(step)).toEqual({ next: 'transfer', status: 'PENDING', code: '00', message: 'ACCOUNT OPENED SUCCESSFULLY', scenario: 'checkout-transfer-chosen' });
    expect(onePayment(step)).toMatchObject({ channel: 'TRANSFER', transfer: transferAccountOf(before) });
    expect(onePayment(step).transfer?.walletName).toBe('Ada Obi / Sandbox Pay');
  });

  it('transferSent: transfer-received settles it SUCCESSFUL, and the customer goes back', async () => {
    const ctx = await context();
    const before = checkout(ctx, { channel: 'TRANSFER' });
    const step = untouched(ctx.store, () => transferSent(ctx, before));
    expect(outcome(step)).toEqual({ next: 'return', status: 'SUCCESSFUL', code: '00', message: 'Successful', scenario: 'transfer-received' });
  });

  it('cancelByCustomer: customer-cancelled', async () => {
    const ctx = await context();
    const before = checkout(ctx);
    const step = untouched(ctx.store, () => cancelByCustomer(ctx, before));
    expect(outcome(step)).toEqual({ next: 'return', status: 'CANCELLED', code: 'S12', message: 'Transaction cancelled by the customer', scenario: 'customer-cancelled' });
  });
});

describe('completeCardAuthentication', () => {
  const card = (ctx: CustomerContext, scenario = 'card-succeeds-after-authentication') =>
    payment({ paymentReference: 'SBREF-AUTH-1', method: 'CARD', status: 'PENDING', code: 'S20', scenario }, ctx.store);

  it.each([
    ['approved with 123456', { approve: true, otp: '123456' } as const, 'card-succeeds-after-authentication', 'SUCCESSFUL', '00', 'Successful', 'otp-correct'],
    ['approved with a wrong OTP', { approve: true, otp: '000000' } as const, 'card-succeeds-after-authentication', 'FAILED', 'S12', 'Transaction Failed', 'otp-wrong'],
    ['approved, a card that stays pending', { approve: true, otp: '123456' } as const, 'card-stays-pending', 'PENDING', '20', 'Transaction is pending', 'otp-card-stays-pending'],
    ['declined', { approve: false } as const, 'card-succeeds-after-authentication', 'FAILED', 'S12', 'Transaction Failed', 'customer-declined'],
  ])('%s: %s', async (_name, answer, initiated, status, code, message, scenario) => {
    const ctx = await context();
    const before = card(ctx, initiated);
    const step = untouched(ctx.store, () => completeCardAuthentication(ctx, before, answer));
    expect(outcome(step)).toEqual({ next: 'return', status: status as PaymentStatus, code, message, scenario });
  });
});

describe('a payment no longer pending', () => {
  it.each(['SUCCESSFUL', 'FAILED', 'CANCELLED'] as const)('%s: every step shows it as it stands, and writes nothing', async (status) => {
    const ctx = await context();
    const settled = checkout(ctx, { status, code: 'S12', message: 'Transaction Failed' });
    const steps = untouched(ctx.store, () => [
      payByCard(ctx, settled, '5123450000000008'),
      payByCard(ctx, settled, '4000000000000002'),
      payByAccount(ctx, settled),
      payByTransfer(ctx, settled),
      transferSent(ctx, settled),
      completeCardAuthentication(ctx, settled, { approve: true, otp: '123456' }),
      completeCardAuthentication(ctx, settled, { approve: false }),
      cancelByCustomer(ctx, settled),
    ]);
    for (const step of steps) expect(step).toEqual({ payment: settled, next: 'settled', writes: [] });
  });
});
