import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import type { SandboxEvent } from '../../../src/events/shape.js';
import { ControlClient } from '../../support/control.js';
import { accountPayment, ApiClient, sandboxForTest } from '../../support/sandbox.js';
import { merchantRecord, paymentRecord, PUBLIC_A } from '../../store/fixtures.js';

/**
 * One redaction rule for every surface (docs/decisions.md#d86-one-redaction-rule):
 * full card numbers a snapshot or a request gave are masked where they enter
 * the store, so the snapshot taken, the control API, the dashboard's data and
 * the status query never show them; a card's token never leaves in a
 * snapshot; a paymentReference that looks like a card number is masked on
 * every surface but the Payments API's own answers and the snapshot, and can
 * still be looked up by either form.
 */

const open: Sandbox[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((sandbox) => sandbox.close()));
});

const FULL = ['5123450000000008', '4111111111111111', '5123 4500 0000 0008'];
const CARD_REFERENCE = '4111111111111111';
const SHOWN_REFERENCE = '411111******1111';

/** The full numbers found in `text`. */
const fullNumbersIn = (text: string): string[] => FULL.filter((number) => text.includes(number));

/** Every event the sandbox still holds, read as a stream's replay reads them: no socket. */
function heldEvents(sandbox: Sandbox): SandboxEvent[] {
  let text = '';
  const unsubscribe = sandbox.events.subscribe({ write: (chunk: string) => (text += chunk), pending: 0, end: () => undefined, destroy: () => undefined }, { lastEventId: 0 });
  unsubscribe();
  return text.split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)) as SandboxEvent);
}

/** A snapshot of one merchant whose records carry full card numbers in every field a file can put one. */
function snapshotWithCardNumbers(): Record<string, unknown> {
  const merchant = merchantRecord(PUBLIC_A);
  const paid = paymentRecord(PUBLIC_A, 'SBREF-CARD-NUMBERS', {
    method: 'CARD', status: 'SUCCESSFUL', code: '00', message: 'Approved for 4111111111111111', scenario: 'card-success',
    fullName: '5123450000000008',
    card: { bin: '512345', last4: '0008', token: '4111111111111111' },
    history: [{ at: '2025-01-01T12:00:00.000Z', status: 'SUCCESSFUL', code: '00', message: 'card 5123 4500 0000 0008', scenario: 'card-success', event: 'create' }],
  });
  const looksLikeACard = paymentRecord(PUBLIC_A, CARD_REFERENCE, { due: { at: '2099-01-01T00:00:00.000Z', event: 'expire' } });
  return { version: 3, merchants: [merchant], payments: [paid, looksLikeACard], orders: [], webhooks: [], clocks: [], deliveries: [] };
}

async function loaded(): Promise<{ sandbox: Sandbox; api: ApiClient; control: ControlClient }> {
  const sandbox = await sandboxForTest();
  open.push(sandbox);
  const control = await ControlClient.for(sandbox);
  expect((await control.send('PUT', '/snapshot', { body: snapshotWithCardNumbers() })).status).toBe(200);
  return { sandbox, api: await ApiClient.for(sandbox), control };
}

/** What the control API and the dashboard read (the dashboard's data is the control API's answers), as text. */
async function controlSurfaces(control: ControlClient, references: string[]): Promise<Record<string, string>> {
  const read: Record<string, string> = {};
  const paths = ['/overview', '/merchants', '/payments', '/orders', '/requests', `/clock/${PUBLIC_A}`, '/webhooks/deliveries', '/overrides'];
  for (const reference of references) paths.push(`/payments/${encodeURIComponent(reference)}`, `/payments/${encodeURIComponent(reference)}/story`);
  for (const path of paths) {
    const answer = await control.send('GET', path);
    expect(answer.status, path).toBe(200);
    read[path] = JSON.stringify(answer.body);
  }
  return read;
}

describe('one redaction rule for every surface', { timeout: 20_000 }, () => {
  it('refuses a snapshot with a full card number in card.bin or card.last4, naming the field', async () => {
    const sandbox = await sandboxForTest();
    open.push(sandbox);
    const control = await ControlClient.for(sandbox);
    for (const [field, card] of [['bin', { bin: '5123450000000008', last4: '0008', token: 'x' }], ['last4', { bin: '512345', last4: '4111111111111111', token: 'x' }]] as const) {
      const snapshot = snapshotWithCardNumbers();
      (snapshot.payments as Array<Record<string, unknown>>)[0]!.card = card;
      const answer = await control.send('PUT', '/snapshot', { body: snapshot });
      expect(answer.status, field).toBe(400);
      expect(answer.body.message).toContain(`/payments/0/card/${field}`);
      expect((await control.payments()).body.payments).toEqual([]);
    }
  });

  it('shows no full card number a snapshot put in card.token, fullName, message or history[].message', async () => {
    const { sandbox, api, control } = await loaded();
    const merchant = await api.merchant({ publicKey: PUBLIC_A, secretKey: merchantRecord(PUBLIC_A).secretKey });

    const snapshot = await control.send('GET', '/snapshot');
    // The other payment's paymentReference is a card number: whole in a snapshot, as the store keeps it (the last test).
    const taken = (snapshot.body.payments as Array<{ paymentReference: string }>).filter((payment) => payment.paymentReference !== CARD_REFERENCE);
    const surfaces: Record<string, string> = { snapshot: JSON.stringify({ ...snapshot.body, payments: taken }), ...(await controlSurfaces(control, ['SBREF-CARD-NUMBERS'])) };
    const query = await api.as(merchant, 'GET', '/payments/query/SBREF-CARD-NUMBERS');
    expect(query.status).toBe(200);
    surfaces['status query'] = JSON.stringify(query.body);
    surfaces.events = JSON.stringify(heldEvents(sandbox));

    for (const [surface, text] of Object.entries(surfaces)) expect(fullNumbersIn(text), surface).toEqual([]);
    // Masked by the one rule, BIN and last four kept: still told apart.
    const payment = (await control.payment('SBREF-CARD-NUMBERS')).body;
    expect(payment).toMatchObject({ fullName: '512345******0008', message: 'Approved for 411111******1111' });
    expect(query.body.data.customers.customerName).toBe('512345******0008');
  });

  it('leaves every card token out of a snapshot, and makes it again when the snapshot is loaded', async () => {
    const { api, control } = await loaded();
    const merchant = await api.merchant({ publicKey: PUBLIC_A, secretKey: merchantRecord(PUBLIC_A).secretKey });
    const initiated = await api.as(merchant, 'POST', '/payments/initiates', {
      paymentReference: 'SBREF-TOKEN-KEPT', amount: '100.00', currency: 'NGN', country: 'NG', email: 'a@example.com', fullName: 'Ada',
      cardNumber: '5123450000000008', cvv: '100', expiryMonth: '05', expiryYear: '30', pin: '1234', paymentType: 'CARD',
    });
    expect(initiated.status).toBe(200);
    expect((await api.as(merchant, 'POST', '/payments/validate', { linkingReference: initiated.body.data.payments.linkingReference, otp: '123456' })).status).toBe(200);

    const taken = await control.send('GET', '/snapshot');
    const payments = taken.body.payments as Array<{ paymentReference: string; card?: Record<string, unknown> }>;
    const carded = payments.filter((payment) => payment.card !== undefined);
    expect(carded.length).toBe(2);
    for (const payment of carded) expect(Object.keys(payment.card!).sort(), payment.paymentReference).toEqual(['bin', 'last4']);
    expect(JSON.stringify(taken.body)).not.toMatch(/SBCTK_/);

    // Loaded back, the card answers the token it had: made again from the payment, whatever a file said.
    expect((await control.send('PUT', '/snapshot', { body: taken.body })).status).toBe(200);
    const refund = await api.send('POST', '/payments/refund', { publicKey: PUBLIC_A, paymentReference: 'SBREF-TOKEN-KEPT', amount: '10.00', currency: 'NGN', country: 'NG' }, merchant.basic);
    expect(refund.body.data?.payments?.card?.token ?? '').toMatch(/^SBCTK_[0-9a-f]{24}$/);
  });

  it('masks a paymentReference that looks like a card number on every surface but the Payments API, and finds it by either form', async () => {
    const { sandbox, api, control } = await loaded();
    const merchant = await api.merchant({ publicKey: PUBLIC_A, secretKey: merchantRecord(PUBLIC_A).secretKey });
    // A request's reference too: initiated, queried and journalled.
    const requested = '5123450000000008';
    expect((await api.as(merchant, 'POST', '/payments/initiates', accountPayment({ paymentReference: requested, fullName: '4111 1111 1111 1111' }))).status).toBe(200);
    // Looked up and changed by the form the lists show: the change is announced, as every change is.
    const settled = await control.send('POST', `/payments/${encodeURIComponent(SHOWN_REFERENCE)}/complete`, { body: { outcome: 'success' } });
    expect(settled.status).toBe(200);
    expect(settled.body.paymentReference).toBe(SHOWN_REFERENCE);
    expect((await control.payment(CARD_REFERENCE)).body.status).toBe('SUCCESSFUL');

    const surfaces = await controlSurfaces(control, [CARD_REFERENCE, SHOWN_REFERENCE, requested, '512345******0008']);
    surfaces.events = JSON.stringify(heldEvents(sandbox));
    for (const [surface, text] of Object.entries(surfaces)) expect(fullNumbersIn(text.replace(/4111 1111 1111 1111/g, '')), surface).toEqual([]);
    expect(surfaces['/payments']).toContain(SHOWN_REFERENCE);
    expect(heldEvents(sandbox).some((event) => event.paymentReference === SHOWN_REFERENCE)).toBe(true);
    // The fullName a request sent is stored masked, so the status query shows it so; the reference is the client's key, answered whole.
    const query = await api.as(merchant, 'GET', `/payments/query/${requested}`);
    expect(query.body.data.payments.paymentReference).toBe(requested);
    expect(query.body.data.customers.customerName).toBe('4111 11** **** 1111');
    // The list's filter finds it by what the list shows.
    const filtered = await control.send('GET', '/payments', { query: { q: SHOWN_REFERENCE } });
    expect(filtered.body.payments.map((payment: { paymentReference: string }) => payment.paymentReference)).toEqual([SHOWN_REFERENCE]);
  });
});
