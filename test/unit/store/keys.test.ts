import { readFile, writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import type { Store } from '../../../src/store/store.js';
import { accountPayment, ApiClient, sandboxForTest } from '../../support/sandbox.js';
import { merchantRecord, orderRecord, paymentRecord, PUBLIC_A, storeFiles, linkingReferenceOf } from '../../store/fixtures.js';

/**
 * Any string a client may send is a key like any other: public keys and
 * paymentReferences that are also the names of every object's properties,
 * or look like integers, are stored, listed in order, and survive a restart
 * from the log and from the snapshot. And stored records cannot be changed
 * in place.
 */

const files = storeFiles();
let sandboxes: Sandbox[] = [];

afterEach(async () => {
  for (const sandbox of sandboxes) await sandbox.close().catch(() => undefined);
  sandboxes = [];
});

const OBJECT_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];
// Integer-like keys come first in a JSON object whatever their order: listed in the order they were made.
const REFERENCES = ['10', ...OBJECT_NAMES, '2', 'SBREF-LAST'];

describe('keys a client may send', () => {
  it('finds nothing under a name every object has, before anything is stored', async () => {
    const store = await files.open();
    for (const name of OBJECT_NAMES) {
      expect(store.merchant(name)).toBeUndefined();
      expect(store.payment(PUBLIC_A, name)).toBeUndefined();
      expect(store.payment(name, name)).toBeUndefined();
      expect(store.order(PUBLIC_A, name)).toBeUndefined();
      expect(store.payments(name)).toEqual([]);
      expect(store.orders(name)).toEqual([]);
      expect(store.paymentWithLinkingReference(name)).toBeUndefined();
    }
    expect(store.merchants()).toEqual([]);
  });

  it('stores them as public keys and paymentReferences, oldest first, after a crash and after a close', async () => {
    const store = await files.open();
    for (const publicKey of [PUBLIC_A, ...OBJECT_NAMES]) {
      store.putMerchant(merchantRecord(publicKey));
      for (const reference of REFERENCES) store.putPayment(paymentRecord(publicKey, reference));
      store.putOrder(orderRecord(publicKey, '__proto__'));
    }
    await store.commit();

    const check = (opened: Store) => {
      expect(opened.merchants().map((merchant) => merchant.publicKey)).toEqual([PUBLIC_A, ...OBJECT_NAMES]);
      for (const publicKey of [PUBLIC_A, ...OBJECT_NAMES]) {
        expect(opened.merchant(publicKey)).toEqual(merchantRecord(publicKey));
        expect(opened.payments(publicKey).map((payment) => payment.paymentReference)).toEqual(REFERENCES);
        for (const reference of REFERENCES) {
          expect(opened.payment(publicKey, reference)).toEqual(paymentRecord(publicKey, reference));
          expect(opened.paymentByLinkingReference(publicKey, linkingReferenceOf(publicKey, reference))?.paymentReference).toBe(reference);
        }
        expect(opened.orders(publicKey)).toEqual([orderRecord(publicKey, '__proto__')]);
      }
    };
    check(store);
    check(await files.open({ file: await files.crashCopy() }));
    await store.close();
    check(await files.open());
  });

  it('reads a version 1 snapshot whose keys are names every object has', async () => {
    // Written as text: an object literal would set the prototype, not a key named __proto__.
    const payment = JSON.stringify(paymentRecord('__proto__', 'constructor'));
    await writeFile(
      files.file,
      `{"version":1,"merchants":{"__proto__":${JSON.stringify(merchantRecord('__proto__'))}},` +
        `"payments":{"__proto__":{"constructor":${payment}}},"orders":{"toString":{}}}`,
    );
    const store = await files.open();
    expect(store.merchant('__proto__')).toEqual(merchantRecord('__proto__'));
    expect(store.payment('__proto__', 'constructor')).toEqual(paymentRecord('__proto__', 'constructor'));
    expect(store.payments('__proto__')).toHaveLength(1);
    expect(store.orders('toString')).toEqual([]);
  });

  it('answers a new payment for each of them over the API, and S18 for each after a restart', { timeout: 30_000 }, async () => {
    const first = await sandboxForTest({ dataFile: files.file });
    sandboxes.push(first);
    const api = await ApiClient.for(first);
    const merchant = await api.merchant();
    for (const paymentReference of OBJECT_NAMES) {
      const initiated = await api.as(merchant, 'POST', '/payments/initiates', accountPayment({ paymentReference }));
      expect(initiated.body.data, paymentReference).toMatchObject({ code: '20', payments: { paymentReference } });
    }
    await first.close();

    const second = await sandboxForTest({ dataFile: files.file });
    sandboxes.push(second);
    const again = await ApiClient.for(second);
    for (const paymentReference of OBJECT_NAMES) {
      const reused = await again.as(merchant, 'POST', '/payments/initiates', accountPayment({ paymentReference }));
      expect(reused.body.data.code, paymentReference).toBe('S18');
    }
  });
});

describe('stored records', () => {
  it('are deep-frozen: changing one in place throws and leaves the stored record as it was', async () => {
    const store = await files.open();
    const payment = paymentRecord(PUBLIC_A, 1, { card: { bin: '512345', last4: '0008', token: 'SBCARD_1' } });
    store.putPayment(payment);
    const order = orderRecord(PUBLIC_A, 'SBREF-ORDER-1');
    store.putOrder(order);
    await store.commit();

    const stored = store.payment(PUBLIC_A, 'SBREF-STORE-0001')!;
    expect(() => Object.assign(stored, { status: 'SUCCESSFUL' })).toThrow(TypeError);
    expect(() => Object.assign(stored.card!, { last4: '9999' })).toThrow(TypeError);
    const storedOrder = store.order(PUBLIC_A, 'SBREF-ORDER-1')!;
    expect(() => storedOrder.items.push(storedOrder.items[0]!)).toThrow(TypeError);
    expect(() => Object.assign(storedOrder.items[0]!, { amount: '1.00' })).toThrow(TypeError);

    expect(store.payment(PUBLIC_A, 'SBREF-STORE-0001')).toMatchObject({ status: 'PENDING', card: { last4: '0008' } });
    expect(store.order(PUBLIC_A, 'SBREF-ORDER-1')?.items).toEqual(orderRecord(PUBLIC_A, 'SBREF-ORDER-1').items);
    // A change is a new record put in its place.
    store.putPayment({ ...stored, status: 'SUCCESSFUL', code: '00', message: 'Successful' });
    expect(store.payment(PUBLIC_A, 'SBREF-STORE-0001')?.status).toBe('SUCCESSFUL');
  });

  it('are frozen when read back from the files too', async () => {
    const store = await files.open();
    store.putPayment(paymentRecord(PUBLIC_A, 1));
    await store.close();
    const reopened = await files.open();
    expect(Object.isFrozen(reopened.payment(PUBLIC_A, 'SBREF-STORE-0001'))).toBe(true);
  });

  it('are refused when they do not fit their schema, and nothing is stored or logged', async () => {
    const store = await files.open();
    const broken = { ...paymentRecord(PUBLIC_A, 1), amount: 150 } as unknown as ReturnType<typeof paymentRecord>;
    expect(() => store.putPayment(broken)).toThrow('the payment cannot be stored: /payment/amount must be string');
    const itemless = { ...orderRecord(PUBLIC_A, 'SBREF-ORDER-1'), items: [] };
    expect(() => store.putOrder(itemless)).toThrow('the order cannot be stored: /order/items must NOT have fewer than 1 items');
    await store.commit();
    expect(store.payments(PUBLIC_A)).toEqual([]);
    expect(store.orders(PUBLIC_A)).toEqual([]);
    await store.close();
    expect(JSON.parse(await readFile(files.file, 'utf8'))).toMatchObject({ payments: [], orders: [] });
  });
});
