import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KnownStateError, type Sandbox } from '../../../src/index.js';
import { snapshotProblem } from '../../../src/store/schema.js';
import { snapshotChunks } from '../../../src/store/snapshot-text.js';
import { ControlClient } from '../../support/control.js';
import { inProcess } from '../../support/in-process.js';
import { ApiClient, cardPayment, freshReference, sandboxForTest, type TestMerchant } from '../../support/sandbox.js';

/**
 * A linkingReference names one payment across all merchants, and a delivery
 * id one delivery (docs/decisions.md#d09-linking-reference,
 * #d78-snapshot-document): the customer pages, POST /payments/validate and
 * the control API's delivery look-up find a record by that key alone. A
 * snapshot whose records reuse one, among themselves or, loaded for one
 * merchant, one another merchant holds, is refused with 400 INPUT naming the
 * record and the field, and nothing of it is loaded.
 */

const open: Sandbox[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((sandbox) => sandbox.close()));
});

type Row = Record<string, unknown>;
const withoutTime = (snapshot: Row) => ({ ...snapshot, takenAt: undefined });

/** A sandbox where M1 has two card payments waiting for their customer, and M2 one of its own. */
async function twoMerchants() {
  const sandbox = await sandboxForTest();
  open.push(sandbox);
  const api = await ApiClient.for(sandbox);
  const control = await ControlClient.for(sandbox);
  const m1 = await api.merchant();
  const m2 = await api.merchant();
  const pending = async (merchant: TestMerchant) => {
    const paymentReference = freshReference();
    const started = await api.as(merchant, 'POST', '/payments/initiates', cardPayment({ paymentReference }));
    expect(started.body.data.code).toBe('S20');
    return { paymentReference, linkingReference: started.body.data.payments.linkingReference as string };
  };
  const ofM1 = [await pending(m1), await pending(m1)];
  await pending(m2);
  const whole = (await control.send('GET', '/snapshot')).body as Row;
  return { sandbox, api, control, m1, m2, ofM1, whole };
}

/** The authentication page of a linkingReference shows its payment's merchant and reference. */
async function authenticatePage(sandbox: Sandbox, linkingReference: string): Promise<string> {
  const page = await inProcess(sandbox).get(`/pages/authenticate/${encodeURIComponent(linkingReference)}`);
  expect(page.status).toBe(200);
  return page.text;
}

/** M1's payments are still M1's: its page shows M1, not M2, and M1 completes it with POST /payments/validate. */
async function stillM1s(setup: Awaited<ReturnType<typeof twoMerchants>>) {
  const { sandbox, api, control, m1, m2, ofM1 } = setup;
  for (const { paymentReference, linkingReference } of ofM1) {
    const page = await authenticatePage(sandbox, linkingReference);
    expect(page).toContain(m1.publicKey);
    expect(page).toContain(paymentReference);
    expect(page).not.toContain(m2.publicKey);
  }
  const validated = await api.as(m1, 'POST', '/payments/validate', { linkingReference: ofM1[0]!.linkingReference, otp: '123456' });
  expect(validated.status).toBe(200);
  expect(validated.body.data.code).toBe('00');
  expect((await control.payment(ofM1[0]!.paymentReference, m1.publicKey)).body).toMatchObject({ publicKey: m1.publicKey, status: 'SUCCESSFUL' });
}

const paymentsOf = (snapshot: Row, publicKey: string) => (snapshot.payments as Row[]).filter((payment) => payment.publicKey === publicKey);

describe('a snapshot that reuses a linkingReference', () => {
  it('loaded for one merchant with another merchant\'s linkingReferences is refused with 400 naming the payment and the field, and changes nothing', async () => {
    const setup = await twoMerchants();
    const { control, m1, m2, whole } = setup;
    const ofM2 = (await control.send('GET', '/snapshot', { query: { publicKey: m2.publicKey } })).body as Row;
    // M2's payments, each under a reference of M2's, carrying M1's linkingReferences.
    const taken = paymentsOf(whole, m1.publicKey).map((payment) => ({ ...payment, publicKey: m2.publicKey, paymentReference: freshReference() }));
    const answer = await control.send('PUT', '/snapshot', { query: { publicKey: m2.publicKey }, body: { ...ofM2, payments: taken } });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('INPUT');
    expect(answer.body.message).toContain('/payments/0/linkingReference');
    expect(answer.body.message).toContain(taken[0]!.paymentReference as string);
    expect(answer.body.message).toContain(m2.publicKey);
    expect(withoutTime((await control.send('GET', '/snapshot')).body)).toEqual(withoutTime(whole));
    await stillM1s(setup);
  });

  it('whole, with two payments sharing one linkingReference, is refused with 400 naming the second and the field, and changes nothing', async () => {
    const setup = await twoMerchants();
    const { control, m1, whole } = setup;
    const payments = whole.payments as Row[];
    const [first, second] = paymentsOf(whole, m1.publicKey);
    const twice = payments.map((payment) => (payment === second ? { ...payment, linkingReference: first!.linkingReference } : payment));
    const answer = await control.send('PUT', '/snapshot', { body: { ...whole, payments: twice } });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('INPUT');
    expect(answer.body.message).toContain(`/payments/${payments.indexOf(second!)}/linkingReference`);
    expect(answer.body.message).toContain(second!.paymentReference as string);
    expect(answer.body.message).toContain(m1.publicKey);
    expect(withoutTime((await control.send('GET', '/snapshot')).body)).toEqual(withoutTime(whole));
    await stillM1s(setup);
  });

  it('whole, with one merchant\'s linkingReference given to another\'s payment, is refused alike', async () => {
    const setup = await twoMerchants();
    const { control, m2, whole } = setup;
    const payments = whole.payments as Row[];
    const [ofM2] = paymentsOf(whole, m2.publicKey);
    const taken = payments.map((payment) => (payment === ofM2 ? { ...payment, linkingReference: setup.ofM1[1]!.linkingReference } : payment));
    const answer = await control.send('PUT', '/snapshot', { body: { ...whole, payments: taken } });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toContain(`/payments/${payments.indexOf(ofM2!)}/linkingReference`);
    expect(answer.body.message).toContain(ofM2!.paymentReference as string);
    expect(answer.body.message).toContain(m2.publicKey);
    await stillM1s(setup);
  });

  it('of one merchant, loaded back over its own payments, or over another merchant reset, loads', async () => {
    const setup = await twoMerchants();
    const { control, m1, m2 } = setup;
    const ofM1 = (await control.send('GET', '/snapshot', { query: { publicKey: m1.publicKey } })).body as Row;
    // Its own linkingReferences: the payments they name are the ones replaced.
    expect((await control.send('PUT', '/snapshot', { query: { publicKey: m1.publicKey }, body: ofM1 })).status).toBe(200);
    await stillM1s(setup);
    // Once M1 is reset, its linkingReferences name nothing: M2 may hold them.
    expect((await control.send('POST', '/reset', { query: { publicKey: m1.publicKey, to: 'empty' } })).status).toBe(200);
    const ofM2 = (await control.send('GET', '/snapshot', { query: { publicKey: m2.publicKey } })).body as Row;
    const taken = (ofM1.payments as Row[]).map((payment) => ({ ...payment, publicKey: m2.publicKey }));
    expect((await control.send('PUT', '/snapshot', { query: { publicKey: m2.publicKey }, body: { ...ofM2, payments: taken } })).status).toBe(200);
  });

  it('given at start (--snapshot) stops the start with one line naming the file, the payment and the field', async () => {
    const { whole, m1 } = await twoMerchants();
    const [first, second] = paymentsOf(whole, m1.publicKey);
    const payments = (whole.payments as Row[]).map((payment) => (payment === second ? { ...payment, linkingReference: first!.linkingReference } : payment));
    const dir = await mkdtemp(join(tmpdir(), 'payments-sandbox-links-'));
    try {
      const file = join(dir, 'snapshot.json');
      await writeFile(file, JSON.stringify({ ...whole, payments }));
      const failure = await sandboxForTest({ snapshot: file }).then((sandbox) => { open.push(sandbox); return undefined; }, (error: unknown) => error);
      expect(failure).toBeInstanceOf(KnownStateError);
      const message = (failure as Error).message;
      expect(message.split('\n')).toHaveLength(1);
      expect(message).toContain(`--snapshot ${file}`);
      expect(message).toMatch(/\/payments\/\d+\/linkingReference/);
      expect(message).toContain(second!.paymentReference as string);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('that gave another merchant the linkingReferences of one merchant\'s baseline makes that merchant\'s reset 409, naming the payment and the field, and changes nothing', async () => {
    const { whole, m1, m2, ofM1 } = await twoMerchants();
    const dir = await mkdtemp(join(tmpdir(), 'payments-sandbox-links-'));
    try {
      // The baseline: M1's two payments, loaded at start.
      const file = join(dir, 'snapshot.json');
      await writeFile(file, JSON.stringify(whole));
      const sandbox = await sandboxForTest({ snapshot: file });
      open.push(sandbox);
      const control = await ControlClient.for(sandbox);
      // A whole state, consistent in itself, where M2 holds M1's first linkingReference and M1 holds nothing.
      const moved = (whole.payments as Row[]).filter((payment) => payment.linkingReference === ofM1[0]!.linkingReference).map((payment) => ({ ...payment, publicKey: m2.publicKey }));
      expect((await control.send('PUT', '/snapshot', { body: { ...whole, payments: moved } })).status).toBe(200);
      const loaded = (await control.send('GET', '/snapshot')).body as Row;
      const reset = await control.send('POST', '/reset', { query: { publicKey: m1.publicKey } });
      expect(reset.status).toBe(409);
      expect(reset.body.error).toBe('CONFLICT');
      expect(reset.body.message).toMatch(/\/payments\/\d+\/linkingReference/);
      expect(reset.body.message).toContain(ofM1[0]!.paymentReference);
      expect(reset.body.message).toContain(m1.publicKey);
      expect(withoutTime((await control.send('GET', '/snapshot')).body)).toEqual(withoutTime(loaded));
      // Every merchant at once goes back to the baseline, whole.
      expect((await control.send('POST', '/reset')).body).toMatchObject({ reset: 'all', to: 'baseline' });
      expect(paymentsOf((await control.send('GET', '/snapshot')).body, m1.publicKey)).toHaveLength(2);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('in a store file is named, with the payment and the field', async () => {
    const { sandbox, m1 } = await twoMerchants();
    // The store file's form: its own records, card tokens and all (GET /snapshot leaves the tokens out).
    const stored = JSON.parse([...snapshotChunks(sandbox.store.records())].join('')) as Row;
    const { version, merchants, payments, orders, webhooks, clocks, deliveries } = stored;
    const [first, second] = paymentsOf(stored, m1.publicKey);
    const twice = (payments as Row[]).map((payment) => (payment === second ? { ...payment, linkingReference: first!.linkingReference } : payment));
    const file = { version, merchants, payments, orders, webhooks, clocks, deliveries };
    expect(snapshotProblem(file)).toBeUndefined();
    const problem = snapshotProblem({ ...file, payments: twice });
    expect(problem).toContain(`/payments/${(payments as Row[]).indexOf(second!)}/linkingReference`);
    expect(problem).toContain(second!.paymentReference as string);
    expect(problem).toContain(m1.publicKey);
  });
});

describe('a snapshot that reuses a delivery id', () => {
  /** M1 with a notification held back two hours on its clock: a delivery due, never sent while the test runs. */
  async function withDelivery() {
    const setup = await twoMerchants();
    const { api, control, m1 } = setup;
    expect((await control.send('PUT', `/webhooks/${m1.publicKey}`, { body: { url: 'http://127.0.0.1:9/webhook' } })).status).toBe(200);
    expect((await control.send('POST', `/webhooks/${m1.publicKey}/faults`, { body: { kind: 'late', delay: 'PT2H' } })).status).toBe(201);
    expect((await api.as(m1, 'POST', '/payments/validate', { linkingReference: setup.ofM1[1]!.linkingReference, otp: '123456' })).body.data.code).toBe('00');
    const whole = (await control.send('GET', '/snapshot')).body as Row;
    const [delivery] = whole.deliveries as Row[];
    expect(delivery).toMatchObject({ publicKey: m1.publicKey });
    return { ...setup, whole, delivery: delivery! };
  }

  it('loaded for one merchant with another merchant\'s delivery id is refused with 400 naming the delivery and the field, and changes nothing', async () => {
    const { control, m1, m2, whole, delivery } = await withDelivery();
    const ofM2 = (await control.send('GET', '/snapshot', { query: { publicKey: m2.publicKey } })).body as Row;
    const answer = await control.send('PUT', '/snapshot', { query: { publicKey: m2.publicKey }, body: { ...ofM2, deliveries: [{ ...delivery, publicKey: m2.publicKey }] } });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('INPUT');
    expect(answer.body.message).toContain('/deliveries/0/id');
    expect(answer.body.message).toContain(m2.publicKey);
    expect(withoutTime((await control.send('GET', '/snapshot')).body)).toEqual(withoutTime(whole));
    expect((await control.send('GET', `/webhooks/deliveries/${delivery.id as string}`)).body).toMatchObject({ publicKey: m1.publicKey });
  });

  it('whole, with two merchants\' deliveries sharing one id, is refused with 400 naming the second and the field', async () => {
    const { control, m2, whole, delivery } = await withDelivery();
    const deliveries = [...(whole.deliveries as Row[]), { ...delivery, publicKey: m2.publicKey }];
    const answer = await control.send('PUT', '/snapshot', { body: { ...whole, deliveries } });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toContain(`/deliveries/${deliveries.length - 1}/id`);
    expect(answer.body.message).toContain(m2.publicKey);
    expect(withoutTime((await control.send('GET', '/snapshot')).body)).toEqual(withoutTime(whole));
  });
});
