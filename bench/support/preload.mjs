// Store files holding N payments of the benchmark merchant, written through
// the project's own Store API. The payment is the one the sandbox itself
// records for the account initiate (made once over HTTP by a sandbox started
// in memory), cloned with a new paymentReference and the linkingReference the
// sandbox derives from it, so the file has the shape real traffic leaves.
import { createHmac } from 'node:crypto';
import { startSandbox } from '../../dist/index.js';
import { Store } from '../../dist/store/store.js';
import { exchangeKey, initiateOnce, MERCHANT } from './initiate.mjs';

/** The merchant and payment records a sandbox stores for one account initiate of the benchmark merchant. */
export async function sampleRecords() {
  const sandbox = await startSandbox({ port: 0, seed: 'bench-growth' });
  try {
    const token = await exchangeKey(sandbox.apiBase);
    const { status, text } = await initiateOnce(`${sandbox.apiBase}/payments/initiates`, token, 'GROWTH-SAMPLE');
    if (status !== 200) throw new Error(`the sample initiate answered ${status}: ${text.slice(0, 300)}`);
    const [payment] = sandbox.store.payments(MERCHANT.publicKey);
    return { merchant: sandbox.store.merchant(MERCHANT.publicKey), payment };
  } finally {
    await sandbox.close();
  }
}

/** As the sandbox derives it: `SBLNK_` and 20 hex chars of HMAC-SHA256(secretKey, `<publicKey>:<paymentReference>`). */
function linkingReferenceOf(paymentReference) {
  const mac = createHmac('sha256', MERCHANT.secretKey).update(`${MERCHANT.publicKey}:${paymentReference}`).digest('hex');
  return `SBLNK_${mac.slice(0, 20)}`;
}

/**
 * Writes `count` payments (and their merchant) to a new store at `file`.
 * The snapshot is written once, by close(), rather than every 10 000 changes.
 */
export async function writeStore(file, count, { merchant, payment }) {
  const store = await Store.open({ file, snapshotEvery: Number.MAX_SAFE_INTEGER });
  try {
    store.putMerchant(merchant);
    for (let i = 0; i < count; i += 1) {
      const paymentReference = `GROWTH-${i}`;
      store.putPayment({ ...payment, paymentReference, linkingReference: linkingReferenceOf(paymentReference) });
      if (i % 5000 === 4999) await store.commit();
    }
    await store.commit();
  } finally {
    await store.close();
  }
}
