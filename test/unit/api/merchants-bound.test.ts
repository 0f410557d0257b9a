import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inProcess } from '../../support/in-process.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_MERCHANTS } from '../../../src/defaults.js';
import type { Sandbox } from '../../../src/index.js';
import { Store } from '../../../src/store/store.js';
import { ControlClient } from '../../support/control.js';
import { accountPayment, ApiClient, sandboxForTest, sandboxWithMerchant, type TestMerchant } from '../../support/sandbox.js';

/**
 * A merchant is bound to the first secret key it brings, and only a reset
 * over the control API releases it: the merchant's next key exchange may then
 * bring another secret key, which binds in turn. And the sandbox keeps a
 * bounded number of merchants: a key exchange of a new one beyond the bound
 * answers 503 and stores nothing, while the merchants it has keep working.
 */

function freshPair(): { publicKey: string; secretKey: string } {
  return { publicKey: `SBTESTPUBK_${randomBytes(8).toString('hex')}`, secretKey: `SBTESTSECK_${randomBytes(8).toString('hex')}` };
}

const basicOf = (publicKey: string, secretKey: string) => `Basic ${Buffer.from(`${publicKey}:${secretKey}`).toString('base64')}`;

describe('the secret key a merchant is bound to', () => {
  let sandbox: Sandbox;
  let api: ApiClient;
  let control: ControlClient;

  beforeAll(async () => {
    sandbox = await sandboxForTest();
    api = await ApiClient.for(sandbox);
    control = await ControlClient.for(sandbox);
  });
  afterAll(() => sandbox.close());

  const exchange = (secretKey: string, publicKey: string) => api.send('POST', '/encrypt/keys', { key: `${secretKey}.${publicKey}` });
  const initiate = (merchant: TestMerchant, token = merchant.token) =>
    api.send('POST', '/payments/initiates', accountPayment({ publicKey: merchant.publicKey }), `Bearer ${token}`);

  it('is released by a reset of the merchant, and only then: tokens keep working until another secret key is brought, which then binds', async () => {
    const merchant = await api.merchant();
    expect((await exchange(`SBTESTSECK_${randomBytes(8).toString('hex')}`, merchant.publicKey)).status).toBe(401);
    expect(sandbox.store.merchant(merchant.publicKey)?.secretKey).toBe(merchant.secretKey);
    expect((await control.reset(merchant.publicKey)).status).toBe(200);
    // Nothing brought yet: the token of the first secret key still acts for the merchant.
    expect((await initiate(merchant)).status).toBe(200);

    const other = `SBTESTSECK_${randomBytes(8).toString('hex')}`;
    const rebound = await exchange(other, merchant.publicKey);
    expect(rebound.status, JSON.stringify(rebound.body)).toBe(200);
    const token: string = rebound.body.data.EncryptedSecKey.encryptedKey;
    expect(token).not.toBe(merchant.token);
    expect(sandbox.store.merchant(merchant.publicKey)?.secretKey).toBe(other);

    // The old secret key and its token are refused now; the new ones work, and bind.
    expect((await initiate(merchant)).status).toBe(401);
    expect((await initiate(merchant, token)).status).toBe(200);
    expect((await exchange(merchant.secretKey, merchant.publicKey)).status).toBe(401);
  });

  it('binds again when the same secret key comes back after a reset, so a later stranger cannot claim it before the next reset', async () => {
    const merchant = await api.merchant();
    await control.reset(merchant.publicKey);
    const again = await exchange(merchant.secretKey, merchant.publicKey);
    expect(again.status).toBe(200);
    expect(again.body.data.EncryptedSecKey.encryptedKey).toBe(merchant.token);
    const stranger = `SBTESTSECK_${randomBytes(8).toString('hex')}`;
    expect((await exchange(stranger, merchant.publicKey)).status).toBe(401);
    expect((await initiate(merchant)).status).toBe(200);
    await control.reset(merchant.publicKey);
    expect((await exchange(stranger, merchant.publicKey)).status).toBe(200);
  });

  it('is released for every merchant by a reset of all, and for no other by a reset of one', async () => {
    const [first, second] = [await api.merchant(), await api.merchant()];
    await control.reset(first.publicKey);
    expect((await exchange(`SBTESTSECK_${randomBytes(8).toString('hex')}`, second.publicKey)).status).toBe(401);
    await control.reset();
    for (const merchant of [first, second]) expect((await exchange(`SBTESTSECK_${randomBytes(8).toString('hex')}`, merchant.publicKey)).status).toBe(200);
  });

  it('is not replaced by Basic credentials: only the key exchange brings a new secret key', async () => {
    const merchant = await api.merchant();
    await control.reset(merchant.publicKey);
    const other = `SBTESTSECK_${randomBytes(8).toString('hex')}`;
    const refund = await api.send('POST', '/payments/refund', { publicKey: merchant.publicKey, paymentReference: 'NONE', amount: '1.00', currency: 'NGN', country: 'NG' }, basicOf(merchant.publicKey, other));
    expect(refund.status).toBe(403);
    expect(refund.body).toEqual({ status: 'ERROR', data: { code: 'S12', message: 'Bad credentials' } });
    expect(sandbox.store.merchant(merchant.publicKey)?.secretKey).toBe(merchant.secretKey);
    // Still released: the key exchange brings it.
    expect((await exchange(other, merchant.publicKey)).status).toBe(200);
  });
});

describe('a release kept in the store file', () => {
  let dir: string;
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('survives a restart, from the log and from the snapshot; a merchant never reset stays bound', async () => {
    dir = await mkdtemp(join(tmpdir(), 'merchants-bound-'));
    const dataFile = join(dir, 'store.json');
    const first = await sandboxForTest({ dataFile });
    const api = await ApiClient.for(first);
    const [released, bound] = [await api.merchant(), await api.merchant()];
    expect((await (await ControlClient.for(first)).reset(released.publicKey)).status).toBe(200);
    await first.close();
    const written = JSON.parse(await readFile(dataFile, 'utf8'));
    expect(written.merchants.find((merchant: { publicKey: string }) => merchant.publicKey === released.publicKey)).toMatchObject({ released: true });

    const second = await sandboxForTest({ dataFile });
    try {
      const again = await ApiClient.for(second);
      const other = () => `SBTESTSECK_${randomBytes(8).toString('hex')}`;
      expect((await again.send('POST', '/encrypt/keys', { key: `${other()}.${bound.publicKey}` })).status).toBe(401);
      expect((await again.send('POST', '/encrypt/keys', { key: `${other()}.${released.publicKey}` })).status).toBe(200);
    } finally {
      await second.close();
    }
  });
});

describe('the bound on merchants', () => {
  it('is DEFAULT_MAX_MERCHANTS unless the store is opened with maxMerchants', async () => {
    expect(DEFAULT_MAX_MERCHANTS).toBe(1000);
    const store = await Store.open({ maxMerchants: 2 });
    expect(store.maxMerchants).toBe(2);
    expect((await Store.open()).maxMerchants).toBe(DEFAULT_MAX_MERCHANTS);
    await expect(Store.open({ maxMerchants: 0 })).rejects.toThrow(RangeError);
  });

  it('is held by the store itself: a merchant beyond it cannot be put, one it has can be replaced', async () => {
    const store = await Store.open({ maxMerchants: 2 });
    const record = (publicKey: string) => ({ publicKey, secretKey: 'SBTESTSECK_boundbound', createdAt: '2025-01-01T00:00:00.000Z' });
    store.putMerchant(record('SBTESTPUBK_bound0001'));
    store.putMerchant(record('SBTESTPUBK_bound0002'));
    expect(store.hasRoomForMerchant()).toBe(false);
    expect(() => store.putMerchant(record('SBTESTPUBK_bound0003'))).toThrow(RangeError);
    store.putMerchant({ ...record('SBTESTPUBK_bound0002'), secretKey: 'SBTESTSECK_otherother' });
    await store.commit();
    expect(store.merchants().map((merchant) => merchant.publicKey)).toEqual(['SBTESTPUBK_bound0001', 'SBTESTPUBK_bound0002']);
  });

  describe('over the Payments API, once the sandbox holds DEFAULT_MAX_MERCHANTS', () => {
    let sandbox: Sandbox;
    let api: ApiClient;
    let kept: TestMerchant;

    beforeAll(async () => {
      ({ sandbox, api, merchant: kept } = await sandboxWithMerchant());
      // The rest put straight into the store: a thousand key exchanges would only be slower.
      for (let n = sandbox.store.merchants().length; n < DEFAULT_MAX_MERCHANTS; n += 1) {
        sandbox.store.putMerchant({ ...freshPair(), createdAt: new Date().toISOString() });
      }
      await sandbox.store.commit();
    });
    afterAll(() => sandbox.close());

    it('answers the key exchange of a new merchant 503 in the spec\'s error body, and stores nothing', async () => {
      const pair = freshPair();
      const refused = await api.send('POST', '/encrypt/keys', { key: `${pair.secretKey}.${pair.publicKey}` });
      expect(refused.status).toBe(503);
      expect(refused.body).toEqual({ message: 'Merchant limit reached', error: 'PROCESSING' });
      expect(refused.headers['x-sandbox-scenario']).toBe('merchant-limit');
      expect(refused.headers['x-sandbox-detail']).toContain(String(DEFAULT_MAX_MERCHANTS));
      expect(sandbox.store.merchant(pair.publicKey)).toBeUndefined();
      expect(sandbox.store.merchants()).toHaveLength(DEFAULT_MAX_MERCHANTS);
    });

    it('refuses Basic credentials of a new pair the same way', async () => {
      const pair = freshPair();
      const refund = await api.send('POST', '/payments/refund', { publicKey: pair.publicKey, paymentReference: 'NONE', amount: '1.00', currency: 'NGN', country: 'NG' }, basicOf(pair.publicKey, pair.secretKey));
      expect(refund.status).toBe(503);
      expect(sandbox.store.merchant(pair.publicKey)).toBeUndefined();
    });

    it('keeps serving the merchants it has: their key exchange, their payments, and a new secret key after a reset', async () => {
      expect((await api.send('POST', '/encrypt/keys', { key: `${kept.secretKey}.${kept.publicKey}` })).status).toBe(200);
      const paid = await api.as(kept, 'POST', '/payments/initiates', accountPayment());
      expect(paid.status).toBe(200);
      expect(paid.body.data.code).toBe('20');
      await inProcess(sandbox).post(`/__sandbox/reset?publicKey=${kept.publicKey}`).expect(200);
      const other = `SBTESTSECK_${randomBytes(8).toString('hex')}`;
      expect((await api.send('POST', '/encrypt/keys', { key: `${other}.${kept.publicKey}` })).status).toBe(200);
      expect(sandbox.store.merchants()).toHaveLength(DEFAULT_MAX_MERCHANTS);
    });
  });
});
