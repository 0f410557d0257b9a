import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { ControlClient } from '../../support/control.js';
import { ApiClient, accountPayment, cardPayment, freshReference, sandboxForTest } from '../../support/sandbox.js';

/**
 * GET /__sandbox/go-live/{publicKey} over the in-process sandbox: the facts
 * only the journal saw (key exchanges, reused references, warnings) are kept
 * with the merchant, a restart on the same store file gives the same
 * report, and a reset starts it over (issue 39; docs/decisions.md#d87-go-live-report).
 */

const open: Sandbox[] = [];
const folders: string[] = [];
afterAll(async () => {
  await Promise.all(open.map((sandbox) => sandbox.close()));
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

async function started(dataFile?: string) {
  const sandbox = await sandboxForTest(dataFile ? { dataFile } : {});
  open.push(sandbox);
  return { sandbox, api: await ApiClient.for(sandbox), control: await ControlClient.for(sandbox) };
}

const checkOf = (report: any, id: string) => report.checks.find((check: any) => check.id === id);
const statuses = (report: any) => Object.fromEntries(report.checks.map((check: any) => [check.id, check.status]));

describe('the go-live report', () => {
  it('is incomplete with nothing failed for a merchant with no traffic; 404 for a key the sandbox does not know; 400 for a malformed one', async () => {
    const { api, control } = await started();
    const merchant = await api.merchant();
    const report = (await control.send('GET', `/go-live/${merchant.publicKey}`)).body;
    expect(report).toMatchObject({ publicKey: merchant.publicKey, verdict: 'incomplete' });
    expect(report.checks.map((check: any) => check.id)).toEqual([
      'notification-acknowledged', 'notification-duplicate-acknowledged', 'notification-unknown-type-acknowledged', 'notification-verified',
      'unique-references', 'outcomes-covered', 'token-reused', 'spec-conformant',
    ]);
    expect(report.checks.filter((check: any) => check.status === 'fail')).toEqual([]);
    expect(checkOf(report, 'token-reused').status).toBe('pass');
    expect((await control.send('GET', '/go-live/SBTESTPUBK_nobody0000001')).status).toBe(404);
    const malformed = await control.send('GET', '/go-live/not-a-key');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toBe('INPUT');
  });

  it('names each reused reference with the journal\'s request, warns on key exchanges past the rule and on what the spec forbids', async () => {
    const { api, control } = await started();
    const merchant = await api.merchant();
    for (let n = 0; n < 4; n += 1) await api.merchant(merchant);
    const reused = freshReference();
    expect((await api.as(merchant, 'POST', '/payments/initiates', accountPayment({ paymentReference: reused }))).body.data.code).toBe('20');
    expect((await api.as(merchant, 'POST', '/payments/initiates', accountPayment({ paymentReference: reused }))).body.data.code).toBe('S18');
    // An amount as a JSON number: production takes it, the spec forbids it.
    const warned = await api.as(merchant, 'POST', '/payments/initiates', accountPayment({ amount: 150 }));
    expect(warned.headers['x-sandbox-warnings']).toContain('amount');

    const report = await eventuallyReport(control, merchant.publicKey, (got) => checkOf(got, 'spec-conformant').status === 'warn' && checkOf(got, 'unique-references').status === 'fail');
    expect(report.verdict).toBe('not-ready');
    const unique = checkOf(report, 'unique-references');
    expect(unique.evidence).toEqual([expect.objectContaining({ paymentReference: reused, requestId: expect.any(Number), detail: expect.stringContaining(reused) })]);
    const journal = (await control.send('GET', '/requests', { query: { publicKey: merchant.publicKey } })).body;
    const entries: any[] = journal.requests ?? journal.entries ?? journal;
    expect(entries.some((entry) => entry.id === unique.evidence[0].requestId && entry.paymentReference === reused)).toBe(true);
    expect(checkOf(report, 'token-reused')).toMatchObject({ status: 'warn', summary: expect.stringContaining('5 key exchanges') });
    expect(checkOf(report, 'spec-conformant').evidence[0].detail).toContain('amount');
  });

  it('counts a link refused for a reference used before, and a reference reused under a forced rule, but not a duplicate an override forced', async () => {
    const { api, control } = await started();
    const merchant = await api.merchant();
    const link = { paymentReference: freshReference(), amount: '2500.00', currency: 'NGN', country: 'NG', callbackUrl: 'https://merchant.example.com/callback' };
    expect((await api.as(merchant, 'POST', '/payments', link)).status).toBe(200);
    expect((await api.as(merchant, 'POST', '/payments', link)).status).toBe(500);
    await control.override({ publicKey: merchant.publicKey, scenario: 'duplicate-reference', times: 1 });
    const forced = await api.as(merchant, 'POST', '/payments/initiates', accountPayment());
    expect([forced.body.data.code, forced.headers['x-sandbox-scenario']]).toEqual(['S18', 'duplicate-reference']);
    // A reference used again under another forced rule is still the integration's: the state machine found it.
    const card = cardPayment();
    await api.as(merchant, 'POST', '/payments/initiates', card);
    await control.override({ publicKey: merchant.publicKey, scenario: 'card-declined', times: 1 });
    expect((await api.as(merchant, 'POST', '/payments/initiates', card)).body.data.code).toBe('S18');
    const report = await eventuallyReport(control, merchant.publicKey, (got) => checkOf(got, 'unique-references').evidence.length === 2);
    expect(checkOf(report, 'unique-references').evidence.map((item: any) => item.paymentReference)).toEqual([link.paymentReference, card.paymentReference]);
  });

  it('records on a notification of success the status query that follows it, and only once it is sent', async () => {
    const { sandbox, api, control } = await started();
    const merchant = await api.merchant();
    const paid = await api.as(merchant, 'POST', '/payments/initiates', accountPayment());
    const reference = paid.body.data.payments.paymentReference;
    const now = new Date().toISOString();
    const delivery = (id: string, sent: boolean) => ({
      id, publicKey: merchant.publicKey, paymentReference: reference,
      event: { eventType: 'transaction' as const, eventDate: now.slice(0, 19).replace('T', ' '), eventId: `evt-${id}`, data: { code: '00', reference } },
      state: sent ? ('delivered' as const) : ('scheduled' as const), schedule: 'current' as const, ackReference: `ack-${id}`,
      attempts: sent ? [{ at: now, url: 'http://127.0.0.1:9/hook', ackReference: `ack-${id}`, status: 200, latencyMs: 2, acknowledged: true }] : [],
      ...(sent ? {} : { dueAt: new Date(Date.now() + 3_600_000).toISOString() }),
      sequence: id === 'dlv_00000000000000000001' ? 1 : 2, createdAt: now, updatedAt: now,
    });
    await sandbox.store.transaction(() => {
      sandbox.store.putDelivery(delivery('dlv_00000000000000000001', true));
      sandbox.store.putDelivery(delivery('dlv_00000000000000000002', false));
    });
    expect((await api.as(merchant, 'GET', `/payments/query/${reference}`)).status).toBe(200);
    expect(sandbox.store.delivery('dlv_00000000000000000001')?.verifiedAt).toEqual(expect.any(String));
    // Not sent yet, due in an hour: a query now does not follow it.
    expect(sandbox.store.delivery('dlv_00000000000000000002')?.verifiedAt).toBeUndefined();
    const report = (await control.send('GET', `/go-live/${merchant.publicKey}`)).body;
    expect(checkOf(report, 'notification-verified')).toMatchObject({ status: 'pass', summary: 'All 1 notifications of success were followed by a status query' });
    // A second query writes nothing more.
    const verifiedAt = sandbox.store.delivery('dlv_00000000000000000001')?.verifiedAt;
    await api.as(merchant, 'GET', `/v3/payments/query/${reference}`);
    expect(sandbox.store.delivery('dlv_00000000000000000001')?.verifiedAt).toBe(verifiedAt);
  });

  it('begins after a fixtures load: the known state is where the integration\'s tests start, not its own traffic', async () => {
    const { control } = await started();
    const publicKey = 'SBTESTPUBK_goLiveFixture1';
    const loaded = await control.send('POST', '/fixtures', {
      body: {
        version: 1,
        merchant: { publicKey, secretKey: 'SBTESTSECK_goLiveFixture1' },
        steps: [
          { api: { method: 'POST', path: '/payments/initiates', body: { ...cardPayment({ publicKey, paymentReference: 'GL-FIX-1' }) } }, expect: { code: 'S20' } },
          { api: { method: 'POST', path: '/payments/initiates', body: { ...cardPayment({ publicKey, paymentReference: 'GL-FIX-1' }) } }, expect: { code: 'S18' } },
        ],
      },
    });
    expect(loaded.status, JSON.stringify(loaded.body)).toBe(200);
    const report = await eventuallyReport(control, publicKey, (got) => got.verdict === 'incomplete');
    expect(Object.values(statuses(report))).toEqual(Array(8).fill('not-exercised'));
  });

  it('is the same after a restart on the same store file, and starts over after a reset of the merchant', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'go-live-'));
    folders.push(folder);
    const dataFile = join(folder, 'state.json');
    const first = await started(dataFile);
    const merchant = await first.api.merchant();
    const reused = freshReference();
    await first.api.as(merchant, 'POST', '/payments/initiates', cardPayment({ paymentReference: reused }));
    await first.api.as(merchant, 'POST', '/payments/initiates', cardPayment({ paymentReference: reused }));
    await first.api.as(merchant, 'POST', '/payments/initiates', cardPayment({ cardNumber: '4000000000000002' }));
    const before = await eventuallyReport(first.control, merchant.publicKey, (got) => checkOf(got, 'unique-references').status === 'fail');
    await first.sandbox.close();

    const second = await started(dataFile);
    const after = (await second.control.send('GET', `/go-live/${merchant.publicKey}`)).body;
    expect({ ...after, generatedAt: undefined }).toEqual({ ...before, generatedAt: undefined });

    expect((await second.control.send('POST', '/reset', { query: { publicKey: merchant.publicKey } })).status).toBe(200);
    const reset = (await second.control.send('GET', `/go-live/${merchant.publicKey}`)).body;
    expect(reset.verdict).toBe('incomplete');
    expect(reset.since > before.since).toBe(true);
    expect(Object.values(statuses(reset)).filter((status) => status === 'fail' || status === 'warn')).toEqual([]);
  });
});

/** The report once `ready(report)` holds: the facts of a request are written just after its answer. */
async function eventuallyReport(control: ControlClient, publicKey: string, ready: (report: any) => boolean): Promise<any> {
  let report: any;
  for (let attempt = 0; attempt < 200; attempt += 1) {
    report = (await control.send('GET', `/go-live/${publicKey}`)).body;
    if (ready(report)) return report;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`the report of ${publicKey} never showed what was expected: ${report.verdict}, ${JSON.stringify(statuses(report))}`);
}
