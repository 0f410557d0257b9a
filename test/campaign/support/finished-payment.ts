import { expect } from 'vitest';
import { accountPayment, cardPayment, momoPayment, transferPayment } from '../../support/sandbox.js';
import { send, type PaymentsApi } from './api.js';

/** The payment types an initiate rule may apply to (its `match.variant`). */
export type Variant = 'ACCOUNT' | 'CARD' | 'MOMO' | 'TRANSFER' | 'USSD';

/** An initiate body of each variant; fields may be replaced. */
export const BODIES: Record<Variant, (fields?: Record<string, unknown>) => Record<string, unknown>> = {
  ACCOUNT: accountPayment,
  CARD: cardPayment,
  MOMO: momoPayment,
  TRANSFER: transferPayment,
  // A USSD payment (docs/decisions.md#d61-ussd) is an account body whose paymentType asks for the code to dial.
  USSD: (fields = {}) => accountPayment({ paymentType: 'USSD', accountNumber: undefined, ...fields }),
};

/**
 * Initiates a payment of `variant` and completes it as its customer would
 * (the OTP, or the control API's complete for a transfer or USSD), and
 * expects it SUCCESSFUL.
 * @returns its initiate body and its view in the control API's list
 */
export async function finishedPayment(api: PaymentsApi, variant: Variant): Promise<{ body: Record<string, unknown>; stored: Record<string, any> }> {
  const body = BODIES[variant]();
  const reference = String(body.paymentReference);
  const initiated = await api.initiate(body);
  expect(initiated.status, JSON.stringify(initiated.body)).toBe(200);
  const linkingReference = initiated.body?.data?.payments?.linkingReference;
  if (variant === 'MOMO') expect((await api.call('POST', '/payments/momo/otp', { linkingReference, otp: '123456' })).body?.data?.code).toBe('00');
  else if (variant === 'TRANSFER' || variant === 'USSD') {
    const settled = await send(api.origin, 'POST', `/__sandbox/payments/${encodeURIComponent(reference)}/complete`, { body: { outcome: 'success', publicKey: api.merchant.publicKey } });
    expect(settled.status, JSON.stringify(settled.body)).toBe(200);
  } else expect((await api.validate(linkingReference)).body?.data?.code).toBe('00');
  const stored = await api.payment(reference);
  expect(stored?.status).toBe('SUCCESSFUL');
  return { body, stored: stored! };
}
