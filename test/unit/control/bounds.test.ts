import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { ControlClient, type ControlResponse } from '../../support/control.js';
import { accountPayment, ApiClient, sandboxForTest } from '../../support/sandbox.js';
import { merchantRecord, paymentRecord } from '../../store/fixtures.js';

/**
 * The control API's lists are bounded like the lists that grow with traffic
 * (control-api.yaml, "Paging" and "Bounds"): merchants and overrides answer
 * a page at a time, every page stops at 4 MiB of rows as well as at `limit`
 * rows, and the sandbox keeps a bounded number of overrides. Rows are put
 * straight into the store: what is tested is the listing.
 */

/** The byte bound of a page (control-api.yaml, "Paging"), and room for the fields beside the rows. */
const PAGE_AT_MOST = 4 * 1024 * 1024 + 4096;
const A = 'SBTESTPUBK_boundsaaaa0001';

let sandbox: Sandbox;
let control: ControlClient;

beforeAll(async () => {
  sandbox = await sandboxForTest();
  control = await ControlClient.for(sandbox);
});
afterAll(() => sandbox.close());
afterEach(async () => {
  expect((await control.send('DELETE', '/overrides')).status).toBe(204);
  expect((await control.reset()).status).toBe(200);
});

/** Every row of a list, following `next`; the pages' sizes and byte lengths too. */
async function walk(path: string, list: string, query: Record<string, string | number | undefined> = {}): Promise<{ rows: any[]; sizes: number[]; bytes: number[] }> {
  const rows: any[] = [];
  const sizes: number[] = [];
  const bytes: number[] = [];
  let cursor: string | undefined;
  do {
    const response: ControlResponse = await control.send('GET', path, { query: { ...query, cursor } });
    expect(response.status, JSON.stringify(response.body).slice(0, 300)).toBe(200);
    rows.push(...response.body[list]);
    sizes.push(response.body[list].length);
    bytes.push(Buffer.byteLength(JSON.stringify(response.body)));
    cursor = response.body.next;
    expect(sizes.length).toBeLessThan(1000);
  } while (cursor !== undefined);
  return { rows, sizes, bytes };
}

const keys = (count: number, tag: string) => Array.from({ length: count }, (_, n) => `SBTESTPUBK_${tag}${String(n).padStart(8, '0')}`);

describe('GET /merchants', () => {
  it('answers 100 merchants a page, with total and next, and a walk lists each once in the order first seen', async () => {
    const stored = keys(250, 'list');
    for (const publicKey of stored) sandbox.store.putMerchant(merchantRecord(publicKey));
    const first = await control.send('GET', '/merchants');
    expect(first.status).toBe(200);
    expect(first.body.merchants).toHaveLength(100);
    expect(first.body.limit).toBe(100);
    expect(first.body.total).toBe(sandbox.store.merchants().length);
    expect(first.body.next).toEqual(expect.any(String));
    const { rows } = await walk('/merchants', 'merchants', { limit: 70 });
    expect(rows.map((merchant) => merchant.publicKey)).toEqual(sandbox.store.merchants().map((merchant) => merchant.publicKey));
    expect(rows.map((merchant) => merchant.publicKey)).toEqual(expect.arrayContaining(stored));
  });

  it('finds merchants by part of their public key, in any case', async () => {
    for (const publicKey of keys(30, 'find')) sandbox.store.putMerchant(merchantRecord(publicKey));
    const found = await control.send('GET', '/merchants', { query: { publicKeyContains: 'FIND0000001', limit: 5 } });
    expect(found.status).toBe(200);
    expect(found.body.total).toBe(10);
    expect(found.body.merchants.map((merchant: { publicKey: string }) => merchant.publicKey)).toEqual(Array.from({ length: 5 }, (_, n) => `SBTESTPUBK_find0000001${n}`));
    expect(found.body.next).toEqual(expect.any(String));
  });

  it('takes a limit from 1 to 1000, and refuses one out of range and a cursor of another list', async () => {
    expect((await control.send('GET', '/merchants', { query: { limit: 1000 } })).status).toBe(200);
    expect((await control.send('GET', '/merchants', { query: { limit: 1001 } })).status).toBe(400);
    const paymentsCursor = Buffer.from(JSON.stringify(['payments', A, 'SBREF-1', 0])).toString('base64url');
    const refused = await control.send('GET', '/merchants', { query: { cursor: paymentsCursor } });
    expect([refused.status, refused.body.error]).toEqual([400, 'INPUT']);
  });
});

describe('GET /overrides', () => {
  it('answers 100 overrides a page, oldest first, and the walk stays right while overrides are deleted between pages', async () => {
    const ids: string[] = [];
    for (let n = 0; n < 250; n += 1) ids.push((await control.override({ fault: 'hang', publicKey: A, times: n + 1 })).id);
    const first = await control.send('GET', '/overrides');
    expect(first.body.overrides.map((override: { id: string }) => override.id)).toEqual(ids.slice(0, 100));
    expect([first.body.total, first.body.limit]).toEqual([250, 100]);
    // The cursor's own override and one on the next page go: the next page starts right after the cursor's place all the same.
    expect((await control.deleteOverride(ids[99]!)).status).toBe(204);
    expect((await control.deleteOverride(ids[100]!)).status).toBe(204);
    const second = await control.send('GET', '/overrides', { query: { cursor: first.body.next } });
    expect(second.body.overrides.map((override: { id: string }) => override.id)).toEqual(ids.slice(101, 201));
  });

  it("lists a merchant's own, and with withSandboxWide the sandbox-wide ones too, in the order they were added", async () => {
    const global = await control.override({ fault: 'hang', times: 1 });
    const mine = await control.override({ fault: 'hang', publicKey: A, times: 1 });
    await control.override({ fault: 'hang', publicKey: 'SBTESTPUBK_someoneelse01', times: 1 });
    const ids = (response: ControlResponse) => response.body.overrides.map((override: { id: string }) => override.id);
    expect(ids(await control.send('GET', '/overrides', { query: { publicKey: A } }))).toEqual([mine.id]);
    const applying = await control.send('GET', '/overrides', { query: { publicKey: A, withSandboxWide: 'true' } });
    expect(ids(applying)).toEqual([global.id, mine.id]);
    expect(applying.body.total).toBe(2);
  });
});

describe('the overrides kept', () => {
  it('refuse a merchant\'s 1001st override with 409 CONFLICT, adding nothing, while other merchants still get theirs', async () => {
    for (let n = 0; n < 1000; n += 1) sandbox.selector.overrides.add({ fault: 'hang', publicKey: A, times: 1 }, new Date().toISOString());
    const refused = await control.createOverride({ fault: 'hang', publicKey: A, times: 1 });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('CONFLICT');
    expect(refused.body.message).toMatch(/^1000 overrides of merchant SBTESTPUBK_boundsaaaa0001 are in force, the most the sandbox keeps/);
    expect(sandbox.selector.overrides.count(A)).toBe(1000);
    expect((await control.createOverride({ fault: 'hang', publicKey: 'SBTESTPUBK_boundsbbbb0002', times: 1 })).status).toBe(201);
    // Room again once one is deleted.
    const oldest = (await control.send('GET', '/overrides', { query: { publicKey: A, limit: 1 } })).body.overrides[0];
    expect((await control.deleteOverride(oldest.id)).status).toBe(204);
    expect((await control.createOverride({ fault: 'hang', publicKey: A, times: 1 })).status).toBe(201);
  });

  it('refuse the 10,001st override of the sandbox with 409 CONFLICT', async () => {
    for (let merchant = 0; merchant < 10; merchant += 1) {
      for (let n = 0; n < 1000; n += 1) sandbox.selector.overrides.add({ fault: 'hang', publicKey: `SBTESTPUBK_many${merchant}`, times: 1 }, new Date().toISOString());
    }
    const refused = await control.createOverride({ fault: 'hang', times: 1 });
    expect([refused.status, refused.body.error]).toEqual([409, 'CONFLICT']);
    expect(refused.body.message).toMatch(/^10000 overrides are in force/);
    expect((await control.send('GET', '/overrides', { query: { limit: 1 } })).body.total).toBe(10_000);
  });
});

describe('the byte bound of a page', () => {
  it('stops a page of large payments before 4 MiB, says so with next, and the walk lists each once', async () => {
    sandbox.store.putMerchant(merchantRecord(A));
    const stored: string[] = [];
    // Each as large as the Payments API lets a payment be, nearly: 1000 of them are some 6 MB.
    const large = { redirectUrl: `https://merchant.example.com/${'r'.repeat(2000)}`, callbackUrl: `https://merchant.example.com/${'c'.repeat(2000)}`, productDescription: 'd'.repeat(1000), fullName: 'n'.repeat(200), email: `${'e'.repeat(300)}@example.com` };
    for (let n = 0; n < 1000; n += 1) {
      const payment = paymentRecord(A, n, large);
      sandbox.store.putPayment(payment);
      stored.push(payment.paymentReference);
    }
    const first = await control.send('GET', '/payments', { query: { publicKey: A, limit: 1000 } });
    expect(first.body.payments.length).toBeLessThan(1000);
    expect(first.body.payments.length).toBeGreaterThan(500);
    expect(first.body.next).toEqual(expect.any(String));
    expect(first.body.limit).toBe(1000);
    const { rows, bytes } = await walk('/payments', 'payments', { publicKey: A, limit: 1000 });
    expect(rows.map((payment) => payment.paymentReference)).toEqual(stored);
    for (const size of bytes) expect(size).toBeLessThan(PAGE_AT_MOST);
  });

  it('stops a page of the journal before 4 MiB, and the next page starts after its last entry', async () => {
    const api = await ApiClient.for(sandbox);
    const merchant = await api.merchant();
    const ids: number[] = [];
    for (let n = 0; n < 300; n += 1) {
      ids.push(sandbox.journal.record({
        time: '2025-03-14T09:00:00.000Z', method: 'POST', path: '/payments/initiates', publicKey: merchant.publicKey, paymentReference: `SBREF-J-${n}`,
        status: 200, durationMs: 1, request: { headers: {}, body: { productDescription: 'j'.repeat(16_000) } },
      }).id);
    }
    const { rows, sizes, bytes } = await walk('/requests', 'requests', { publicKey: merchant.publicKey, limit: 1000 });
    expect(sizes.length).toBeGreaterThan(1);
    // Newest first: the 300 entries, then the merchant's key exchange.
    expect(rows.map((entry) => entry.id)).toEqual(sandbox.journal.query({ publicKey: merchant.publicKey }).map((entry) => entry.id));
    expect(rows.slice(0, 300).map((entry) => entry.id)).toEqual([...ids].reverse());
    for (const size of bytes) expect(size).toBeLessThan(PAGE_AT_MOST);
  });
});

describe('the deliveries list', () => {
  it('stops a page of large deliveries before 4 MiB, and the walk lists each once, newest first', async () => {
    const api = await ApiClient.for(sandbox);
    const merchant = await api.merchant();
    const ids: string[] = [];
    // Stored directly: 600 deliveries of 10 KB each are more than one page can hold.
    for (let n = 0; n < 600; n += 1) {
      const id = `dlv_${n.toString(16).padStart(20, '0')}`;
      ids.push(id);
      sandbox.store.putDelivery({
        id, publicKey: merchant.publicKey, paymentReference: `SBREF-D-${n}`,
        event: { eventType: 'transaction', eventDate: '2025-03-14 09:00:00', eventId: `evt_bounds_${n}`, data: { productDescription: 'd'.repeat(10_000) } },
        state: 'withheld', schedule: 'current', ackReference: `ack_${n}`, attempts: [], sequence: 1_000_000 + n,
        createdAt: '2025-03-14T09:00:00.000Z', updatedAt: '2025-03-14T09:00:00.000Z',
      });
    }
    await sandbox.store.commit();
    const { rows, sizes, bytes } = await walk('/webhooks/deliveries', 'deliveries', { publicKey: merchant.publicKey, limit: 1000 });
    expect(sizes.length).toBeGreaterThan(1);
    expect(rows.map((delivery) => delivery.id)).toEqual([...ids].reverse());
    for (const size of bytes) expect(size).toBeLessThan(PAGE_AT_MOST);
  });
});

describe('settling a payment named in the body', () => {
  it('settles payments whose references are `.` and `..`, which no URL path can carry', async () => {
    const api = await ApiClient.for(sandbox);
    const merchant = await api.merchant();
    for (const paymentReference of ['.', '..', 'a/b?c#d%e']) {
      expect((await api.as(merchant, 'POST', '/payments/initiates', accountPayment({ paymentReference }))).body.data.code).toBe('20');
    }
    for (const [paymentReference, outcome] of [['.', 'success'], ['..', 'failure'], ['a/b?c#d%e', 'success']] as const) {
      const settled = await control.send('POST', '/payments/complete', { body: { paymentReference, outcome, publicKey: merchant.publicKey } });
      expect(settled.status, paymentReference).toBe(200);
      expect(settled.body.paymentReference).toBe(paymentReference);
    }
    expect(sandbox.store.payment(merchant.publicKey, '.')?.status).toBe('SUCCESSFUL');
    expect(sandbox.store.payment(merchant.publicKey, '..')?.status).toBe('FAILED');
    expect(sandbox.store.payment(merchant.publicKey, 'a/b?c#d%e')?.status).toBe('SUCCESSFUL');
    const again = await control.send('POST', '/payments/complete', { body: { paymentReference: '.', outcome: 'failure', publicKey: merchant.publicKey } });
    expect([again.status, again.body.error]).toEqual([409, 'CONFLICT']);
    const unknown = await control.send('POST', '/payments/complete', { body: { paymentReference: 'NONE', outcome: 'success' } });
    expect(unknown.status).toBe(404);
  });

  it('bounds the path parameters of the control API as the Payments API does', async () => {
    const response = await control.send('GET', `/payments/${'P'.repeat(201)}`);
    expect([response.status, response.body.error]).toEqual([400, 'INPUT']);
  });
});
