import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { Receiver } from '../support/receiver.js';
import { accountPayment, cardPayment, checkoutLink, momoPayment, order, listeningSandbox } from '../support/sandbox.js';
import { PaymentsApi, send, together, type Answer } from './support/api.js';
import { knob } from './support/knobs.js';

/**
 * Races over real HTTP: many requests about one payment sent at once. The
 * state machine must let exactly one of them win, however the requests
 * interleave, in memory and on a data file (where every answer waits for
 * its write). RACE_CONCURRENCY sets how many requests race (default 25),
 * RACE_ROUNDS how often each race is run (default 3).
 */

const CONCURRENCY = knob('RACE_CONCURRENCY', 25);
const ROUNDS = knob('RACE_ROUNDS', 3);
const TIMEOUT = 60_000;

const codes = (answers: Answer[]) => answers.map((answer) => `${answer.status} ${answer.body?.data?.code ?? answer.body?.message ?? ''}`);
const count = (answers: Answer[], code: string) => answers.filter((answer) => answer.status === 200 && answer.body?.data?.code === code).length;

describe.each([
  ['in memory', false],
  ['on a data file', true],
])('races %s', (_where, onFile) => {
  let sandbox: Sandbox;
  let dir: string;
  let api: PaymentsApi;
  let receiver: Receiver;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'payments-sandbox-races-'));
    // Notifications on: the races must not make two events of one change, nor lose one.
    receiver = await Receiver.start();
    sandbox = await listeningSandbox({ webhookUrl: receiver.url, ...(onFile ? { dataFile: join(dir, 'sandbox.json') } : {}) });
    api = await PaymentsApi.as(sandbox.url);
  });

  afterAll(async () => {
    await sandbox?.close();
    await receiver?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** A payment made SUCCESSFUL over the API: an account payment and its OTP. */
  async function paid(amount = '150.00'): Promise<string> {
    const body = accountPayment({ amount });
    const initiated = await api.initiate(body);
    expect(initiated.body?.data?.code, JSON.stringify(initiated.body)).toBe('20');
    const validated = await api.validate(initiated.body.data.payments.linkingReference);
    expect(validated.body?.data?.code, JSON.stringify(validated.body)).toBe('00');
    return String(body.paymentReference);
  }

  it.each([
    ['ACCOUNT', accountPayment, '20'],
    ['CARD', cardPayment, 'S20'],
    ['MOMO', momoPayment, 'NIP'],
  ])('one paymentReference initiated %s at once: exactly one succeeds, the others get S18', { timeout: TIMEOUT }, async (_type, body, pending) => {
    for (let round = 0; round < ROUNDS; round += 1) {
      const payment = body();
      const answers = await together(CONCURRENCY, () => api.initiate(payment));
      expect(count(answers, pending), codes(answers).join(', ')).toBe(1);
      expect(count(answers, 'S18'), codes(answers).join(', ')).toBe(CONCURRENCY - 1);
      const stored = (await api.payments()).filter((candidate) => candidate.paymentReference === payment.paymentReference);
      expect(stored).toHaveLength(1);
      expect(stored[0]).toMatchObject({ status: 'PENDING', code: pending });
    }
  });

  it.each([
    ['hosted checkout link', '/payments', checkoutLink],
    ['order', '/payments/order', order],
  ])('one paymentReference used by a %s at once: exactly one is made, the others get 500 Transaction with reference exists', { timeout: TIMEOUT }, async (_what, path, body) => {
    for (let round = 0; round < ROUNDS; round += 1) {
      const link = body();
      const answers = await together(CONCURRENCY, () => api.call('POST', path, link));
      expect(count(answers, '00'), codes(answers).join(', ')).toBe(1);
      const refused = answers.filter((answer) => answer.status === 500 && answer.body?.message === 'Transaction with reference exists');
      expect(refused, codes(answers).join(', ')).toHaveLength(CONCURRENCY - 1);
    }
  });

  it('one payment validated at once: exactly one 00, the others RR, and it is SUCCESSFUL', { timeout: TIMEOUT }, async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      const payment = accountPayment();
      const initiated = await api.initiate(payment);
      const linkingReference = initiated.body.data.payments.linkingReference;
      // Right and wrong OTPs race: whichever is first decides, the rest find the payment processed.
      const answers = await together(CONCURRENCY, (index) => api.validate(linkingReference, index % 3 === 0 ? '000000' : '123456'));
      const winners = count(answers, '00') + count(answers, 'S12');
      expect(winners, codes(answers).join(', ')).toBe(1);
      expect(count(answers, 'RR'), codes(answers).join(', ')).toBe(CONCURRENCY - 1);
      const stored = await api.payment(String(payment.paymentReference));
      expect(stored?.status).toBe(count(answers, '00') === 1 ? 'SUCCESSFUL' : 'FAILED');
    }
  });

  it('partial refunds at once never add up to more than was paid', { timeout: TIMEOUT }, async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      const reference = await paid('150.00');
      // 25 refunds of 10.00 against 150.00 paid: at most 15 can be approved.
      const answers = await together(CONCURRENCY, () => api.refund(reference, '10.00'));
      const approved = count(answers, '00');
      expect(approved, codes(answers).join(', ')).toBe(Math.min(15, CONCURRENCY));
      expect(count(answers, 'S12'), codes(answers).join(', ')).toBe(CONCURRENCY - approved);
      const stored = await api.payment(reference);
      expect(stored?.refundedAmount).toBe(`${(approved * 10).toFixed(2)}`);
      expect(stored?.status).toBe(approved === 15 ? 'REFUNDED' : 'SUCCESSFUL');
    }
  });

  it('refunds of mixed amounts at once: what is approved is what is stored, and never more than paid', { timeout: TIMEOUT }, async () => {
    const amounts = ['100.00', '60.00', '45.50', '30.00', '0.01', '150.00', '75.25', '10.00'];
    for (let round = 0; round < ROUNDS; round += 1) {
      const reference = await paid('150.00');
      const sent = Array.from({ length: CONCURRENCY }, (_, index) => amounts[(index + round) % amounts.length]!);
      const answers = await together(CONCURRENCY, (index) => api.refund(reference, sent[index]!));
      const approvedMinor = answers.reduce((sum, answer, index) => (answer.body?.data?.code === '00' ? sum + Math.round(Number(sent[index]) * 100) : sum), 0);
      expect(approvedMinor, codes(answers).join(', ')).toBeLessThanOrEqual(15_000);
      const stored = await api.payment(reference);
      expect(Math.round(Number(stored?.refundedAmount) * 100)).toBe(approvedMinor);
    }
  });

  it('cancel and validate of one pending payment at once: one winner, and the payment shows it', { timeout: TIMEOUT }, async () => {
    for (let round = 0; round < ROUNDS * 4; round += 1) {
      const payment = accountPayment();
      const initiated = await api.initiate(payment);
      const linkingReference = initiated.body.data.payments.linkingReference;
      const reference = String(payment.paymentReference);
      const answers = await together(6, (index) => (index % 2 === 0 ? api.cancel(reference) : api.validate(linkingReference)));
      const cancels = answers.filter((_, index) => index % 2 === 0);
      const validates = answers.filter((_, index) => index % 2 === 1);
      const cancelled = count(cancels, '00');
      const validated = count(validates, '00');
      expect(cancelled + validated, codes(answers).join(', ')).toBe(1);
      const stored = await api.payment(reference);
      expect(stored?.status).toBe(cancelled === 1 ? 'CANCELLED' : 'SUCCESSFUL');
    }
  });

  it('a reset racing initiates leaves no payment half there', { timeout: TIMEOUT }, async () => {
    const bodies = Array.from({ length: CONCURRENCY }, () => accountPayment());
    const [answers] = await Promise.all([
      together(CONCURRENCY, (index) => api.initiate(bodies[index]!)),
      send(sandbox.url, 'POST', `/__sandbox/reset?publicKey=${encodeURIComponent(api.merchant.publicKey)}`),
    ]);
    const stored = new Set((await api.payments()).map((payment) => payment.paymentReference));
    // Each payment is either stored with its linkingReference working, or gone with its reference free again.
    for (const [index, body] of bodies.entries()) {
      const reference = String(body.paymentReference);
      const linkingReference = answers[index]!.body?.data?.payments?.linkingReference;
      if (stored.has(reference)) {
        expect((await api.validate(linkingReference)).body?.data?.code).toBe('00');
      } else {
        expect((await api.initiate(body)).body?.data?.code).toBe('20');
      }
    }
  });

  it('made exactly one transaction event of every payment the races resolved, each delivered', { timeout: TIMEOUT }, async () => {
    await expect.poll(() => sandbox.webhooks.deliveries({ state: 'scheduled' }).length, { timeout: 10_000 }).toBe(0);
    for (const merchant of sandbox.store.merchants()) {
      for (const payment of sandbox.store.payments(merchant.publicKey)) {
        const events = sandbox.webhooks.deliveries({ publicKey: payment.publicKey, paymentReference: payment.paymentReference, eventType: 'transaction' });
        expect(events.length, `${payment.paymentReference} ${payment.status}`).toBe(payment.status === 'PENDING' ? 0 : 1);
        for (const delivery of events) expect(delivery.state).toBe('delivered');
      }
    }
  });
});
