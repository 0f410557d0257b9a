import type { SyncLevel } from '../../../src/store/store.js';
import { banner, run, type Run } from '../../support/process.js';
import { freshReference } from '../../support/sandbox.js';
import { send, type Answer, type PaymentsApi } from './api.js';

/**
 * Card pre-authorisation over real HTTP, for the campaign's races and kill
 * loops (docs/decisions.md#d48-card-operations; external-api.yml, Authorise and Capture):
 * authorise, capture, what each answer means, and the state a stored
 * pre-authorisation must show for what was captured and refunded of it.
 * Amounts are decimal strings in major units on the wire, whole minor units
 * (kobo) in the test's own sums, so that no sum is off by a rounding.
 */

/** The provider's 400 body for a capture of a payment that is no pre-authorisation open to capture. */
export const NO_AUTHORISED_TRANSACTION = { status: 'ERROR', data: { code: 'S12', message: 'No authorised transaction found for this reference' } };

/** Whole minor units of a decimal amount string in major units. */
export const toMinor = (amount: string): number => Math.round(Number(amount) * 100);

/** The decimal amount string, in major units, of whole minor units. */
export const fromMinor = (minor: number): string => (minor / 100).toFixed(2);

/** A whole number of minor units from `low` to `high`, both included, drawn from `random`. */
export const drawMinor = (random: () => number, low: number, high: number): number => low + Math.floor(random() * (high - low + 1));

/** A body of POST /payments/authorise with a card the catalogue approves; fields may be replaced. */
export const authorisation = (fields: Record<string, unknown> = {}): Record<string, unknown> => ({
  paymentReference: freshReference(),
  amount: '100.00',
  currency: 'NGN',
  country: 'NG',
  cardNumber: '5123450000000008',
  cvv: '100',
  expiryMonth: '05',
  expiryYear: '30',
  ...fields,
});

/** POST /payments/authorise with Basic credentials. */
export function authorise(api: PaymentsApi, body: Record<string, unknown>): Promise<Answer> {
  return api.call('POST', '/payments/authorise', body, { authorization: api.merchant.basic });
}

/** POST /payments/capture of `amount` (major units) with Basic credentials. */
export function capture(api: PaymentsApi, paymentReference: string, amount: string): Promise<Answer> {
  return api.call('POST', '/payments/capture', { paymentReference, amount, currency: 'NGN', country: 'NG', productDescription: 'campaign capture' }, { authorization: api.merchant.basic });
}

/**
 * Authorises `amount` (major units) on a fresh paymentReference and returns it.
 * @throws Error when the answer is not 201 00 AUTHORIZED.
 */
export async function authorised(api: PaymentsApi, amount: string): Promise<string> {
  const body = authorisation({ amount });
  const answer = await authorise(api, body);
  if (answer.status !== 201 || answer.body?.data?.code !== '00' || answer.body?.data?.payments?.status !== 'AUTHORIZED') {
    throw new Error(`authorise ${amount} answered ${answer.status} ${JSON.stringify(answer.body)}`);
  }
  return String(body.paymentReference);
}

/** True for a 200 answer with result code `code` (`00`, or `S12` for a capture, refund or cancel that changed nothing). */
export const answered = (answer: Answer, code: string): boolean => answer.status === 200 && answer.body?.data?.code === code;

/** True for the provider's 400 No authorised transaction found for this reference. */
export const noAuthorisedTransaction = (answer: Answer): boolean =>
  answer.status === 400 && JSON.stringify(answer.body) === JSON.stringify(NO_AUTHORISED_TRANSACTION);

/** An answer in one line for assertion messages: its HTTP status, result code, and the payment's status or the message. */
export const described = (answer: Answer): string =>
  [answer.status, answer.body?.data?.code, answer.body?.data?.payments?.status ?? (answer.status === 200 ? '' : answer.body?.data?.message ?? JSON.stringify(answer.body))]
    .filter((part) => part !== undefined && part !== '')
    .join(' ');

/**
 * The status a stored pre-authorisation must have, in minor units: AUTHORIZED
 * while nothing is captured, PARTIALLY_CAPTURED, CAPTURED once all of the
 * amount is, REFUNDED once all that was captured is refunded
 * (docs/decisions.md#d48-card-operations; src/domain/state-machine.ts).
 */
export function preauthorisationStatus(amountMinor: number, capturedMinor: number, refundedMinor: number): string {
  if (refundedMinor > 0 && refundedMinor === capturedMinor) return 'REFUNDED';
  if (capturedMinor === 0) return 'AUTHORIZED';
  return capturedMinor === amountMinor ? 'CAPTURED' : 'PARTIALLY_CAPTURED';
}

/**
 * One payment read through the control API's own endpoint
 * (`GET /__sandbox/payments/<paymentReference>`).
 * @throws Error when it does not answer 200.
 */
export async function controlPayment(api: PaymentsApi, paymentReference: string): Promise<Record<string, any>> {
  const answer = await send(api.origin, 'GET', `/__sandbox/payments/${encodeURIComponent(paymentReference)}?publicKey=${encodeURIComponent(api.merchant.publicKey)}`);
  if (answer.status !== 200) throw new Error(`GET /__sandbox/payments/${paymentReference} answered ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** Starts the executable on `dataFile` at a durability level, on a free loopback port, and waits for its banner. */
export async function sandboxOnFile(dataFile: string, sync: SyncLevel): Promise<{ started: Run; origin: string }> {
  const started = run(['--port', '0', '--data', dataFile, '--sync', sync]);
  const shown = await banner(started);
  return { started, origin: shown.origin };
}
