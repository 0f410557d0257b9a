import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/index.js';
import { ControlClient } from '../support/control.js';
import { TIMEOUT } from '../support/process.js';
import { accountPayment, type ApiClient, type TestMerchant } from '../support/sandbox.js';
import { SAMPLE_KEYS, sandboxForSamples, SdkSamples, type SamplesSandbox } from './sdk-samples.js';
import { redactText } from '../../src/redaction/redact.js';

/**
 * The provider's Node SDK (seerbit-nodejs 0.3.0) against the sandbox, as a
 * merchant runs it: the SDK hard-wires https://seerbitapi.com/api/v2/, so
 * each shipped sample runs in its own process with HTTPS_PROXY pointing at
 * the sandbox's proxy, the sandbox's CA trusted, and the env-proxy preload.
 */

let setup: SamplesSandbox;
let sandbox: Sandbox;
let api: ApiClient;
let control: ControlClient;
let samples: SdkSamples;
let merchant: TestMerchant;

beforeAll(async () => {
  setup = await sandboxForSamples();
  ({ sandbox, api, control, samples, merchant } = setup);
}, TIMEOUT);

afterAll(async () => {
  await setup?.dispose();
});

/** The merchant's payments as the control API shows them: a paymentReference that looks like a card number (a Date.now() can pass Luhn) masked. */
async function storedPayments(): Promise<any[]> {
  return (await control.send('GET', '/payments', { query: { publicKey: SAMPLE_KEYS.publicKey } })).body.payments;
}

/** The journal entries of the samples' merchant for `path`. A reference that looks like a card number (a Date.now() can pass Luhn) is shown masked there. */
async function journal(path: string): Promise<any[]> {
  return (await control.send('GET', '/requests', { query: { publicKey: SAMPLE_KEYS.publicKey, path } })).body.requests;
}

/** `source` with `from` replaced by `to`, failing when the sample no longer contains `from`. */
function edited(source: string, from: string, to: string): string {
  expect(source, `the sample contains ${from}`).toContain(from);
  return source.replace(from, to);
}

describe('seerbit-nodejs 0.3.0 samples through HTTPS_PROXY', () => {
  it(
    'StandardCheckout.Initialize (the README example): 00 and a redirectLink to the sandbox checkout page; the payment is stored',
    async () => {
      const run = await samples.run('standard-checkout', await SdkSamples.readmeStandardCheckout());
      expect(run.printed, run.stdout + run.stderr).toMatchObject({ status: 'SUCCESS', data: { code: '00' } });
      const redirectLink: string = run.printed.data.payments.redirectLink;
      expect(redirectLink.startsWith(`${sandbox.publicUrl}/pages/`), redirectLink).toBe(true);
      const stored = (await storedPayments()).find((payment) => redirectLink.endsWith(`/${encodeURIComponent(payment.linkingReference)}`));
      expect(stored, 'the payment behind the redirectLink').toMatchObject({ email: 'testmerchant@mail.com', currency: 'NGN', country: 'NG' });
      expect(Number(stored.amount)).toBe(100);
      const entries = await journal('/payments');
      expect(entries.some((entry) => entry.method === 'POST' && entry.status === 200 && entry.response?.body?.data?.payments?.redirectLink === redirectLink)).toBe(true);
    },
    TIMEOUT,
  );

  it(
    'OrderService.CreateOrderBeforePayment (samples/orders/createBeforePayment.js): 00 with a redirectLink; the payment is stored',
    async () => {
      const run = await samples.run('create-order', await SdkSamples.sample('orders/createBeforePayment.js'));
      expect(run.printed, run.stdout + run.stderr).toMatchObject({ status: 'SUCCESS', data: { code: '00' } });
      const { paymentReference, redirectLink } = run.printed.data.payments;
      expect(String(redirectLink).startsWith(`${sandbox.publicUrl}/pages/`), redirectLink).toBe(true);
      const stored = (await storedPayments()).find((payment) => payment.paymentReference === redactText(String(paymentReference)));
      expect(stored, `payment ${paymentReference}`).toMatchObject({ email: 'johndoe@gmail.com', currency: 'NGN' });
      expect((await journal('/payments/order')).some((entry) => entry.status === 200 && entry.paymentReference === redactText(String(paymentReference)))).toBe(true);
    },
    TIMEOUT,
  );

  it(
    'OrderService.GetOrders (samples/orders/getOrders.js, sent as GET with a body): 00 with the products, productId "fruits" as sent',
    async () => {
      const created = await samples.run('create-order-first', await SdkSamples.sample('orders/createBeforePayment.js'));
      expect(created.printed, created.stdout + created.stderr).toMatchObject({ data: { code: '00' } });
      const run = await samples.run('get-orders', await SdkSamples.sample('orders/getOrders.js'));
      expect(run.printed, run.stdout + run.stderr).toMatchObject({ status: 'SUCCESS', data: { code: '00' } });
      const products: any[] = run.printed.data.products;
      expect(products.filter((product) => product.productId === 'fruits').map((product) => product.productDescription)).toEqual(
        expect.arrayContaining(['mango', 'orange']),
      );
      const entries = await journal(`/products/orders/publicKey/${SAMPLE_KEYS.publicKey}`);
      expect(entries.some((entry) => entry.method === 'GET' && entry.status === 200)).toBe(true);
    },
    TIMEOUT,
  );

  it(
    'MobileMoneyCheckout.InitializeTransaction (samples/momo/initializePayment.js): NIP with paymentReference and linkingReference; a pending MOMO payment',
    async () => {
      const run = await samples.run('momo', await SdkSamples.sample('momo/initializePayment.js'));
      expect(run.printed, run.stdout + run.stderr).toMatchObject({ status: 'SUCCESS', data: { code: 'NIP' } });
      const { paymentReference, linkingReference } = run.printed.data.payments;
      expect(typeof linkingReference).toBe('string');
      const stored = (await storedPayments()).find((payment) => payment.paymentReference === redactText(String(paymentReference)));
      expect(stored, `payment ${paymentReference}`).toMatchObject({ method: 'MOMO', status: 'PENDING', linkingReference, currency: 'GHS' });
      expect((await journal('/payments/initiates')).some((entry) => entry.status === 200 && entry.paymentReference === redactText(String(paymentReference)))).toBe(true);
    },
    TIMEOUT,
  );

  it(
    'VerificationService.Verify (samples/verifyTransaction.js on a payment made first; sent as GET with a body): the stored code and the paymentReference',
    async () => {
      const initiated = await api.as(merchant, 'POST', '/payments/initiates', accountPayment());
      const paymentReference: string = initiated.body.data.payments.paymentReference;
      const run = await samples.run('verify', edited(await SdkSamples.sample('verifyTransaction.js'), '"1614510868673"', JSON.stringify(paymentReference)));
      const stored = (await storedPayments()).find((payment) => payment.paymentReference === redactText(paymentReference));
      expect(run.printed, run.stdout + run.stderr).toMatchObject({ data: { code: stored.code, payments: { paymentReference } } });
      expect((await journal(`/payments/query/${paymentReference}`)).some((entry) => entry.method === 'GET' && entry.status === 200)).toBe(true);
    },
    TIMEOUT,
  );

  it(
    'samples/card/refundPayment.js calls checkout.Refund, which CardCheckout does not have: a fault of the SDK sample, nothing is sent',
    async () => {
      const refunds = async () => (await control.send('GET', '/requests', { query: { path: '/payments/refund' } })).body.count;
      const before = await refunds();
      const run = await samples.run('refund-as-shipped', await SdkSamples.sample('card/refundPayment.js'));
      expect(run.code).not.toBe(0);
      expect(run.stderr).toMatch(/checkout\.Refund is not a function/);
      expect(await refunds()).toBe(before);
    },
    TIMEOUT,
  );

  it(
    'CardCheckout.AuthorizePreAuth (samples/card/authorizePreAuth.js): 00 APPROVED, AUTHORIZED with the card\'s BIN, last four and token; the payment is stored AUTHORIZED',
    async () => {
      const run = await samples.run('authorize-preauth', await SdkSamples.sample('card/authorizePreAuth.js'));
      expect(run.printed, run.stdout + run.stderr).toMatchObject({
        status: 'SUCCESS',
        data: { code: '00', message: 'APPROVED', payments: { status: 'AUTHORIZED', card: { bin: '512345', last4: '0008', token: expect.stringMatching(/^SBCTK_/) } } },
      });
      const reference = String(run.printed.data.payments.paymentReference);
      const stored = (await storedPayments()).find((payment) => payment.linkingReference === run.printed.data.payments.linkingReference);
      expect(stored, reference).toMatchObject({ status: 'AUTHORIZED', amount: '100.00', capturedAmount: '0.00', method: 'CARD' });
      const entries = await journal('/payments/authorise');
      expect(entries.some((entry: any) => entry.method === 'POST' && entry.status === 201), JSON.stringify(entries)).toBe(true);
    },
    TIMEOUT,
  );

  it(
    'OrderService.CreateOrderAfterPayment and GetOrderByReference (samples/orders/createAfterPayment.js and getOrder.js on a payment made first): 201 with the lines, then the same lines by reference',
    async () => {
      const initiated = await api.as(merchant, 'POST', '/payments/initiates', accountPayment());
      const paymentReference: string = initiated.body.data.payments.paymentReference;
      const created = await samples.run('order-after-payment', edited(await SdkSamples.sample('orders/createAfterPayment.js'), '"1614546769962"', JSON.stringify(paymentReference)));
      expect(created.printed, created.stdout + created.stderr).toMatchObject({ status: 'SUCCESS', data: { code: '00' } });
      const lines = created.printed.data.products as Array<{ orderId: string; amount: number; paymentReference: string }>;
      expect(lines.map(({ orderId, amount }) => ({ orderId, amount }))).toEqual([{ orderId: '22S789420214623', amount: 500 }, { orderId: '1a3sa82748272556947', amount: 900 }]);
      expect((await journal('/products/orders')).some((entry) => entry.method === 'POST' && entry.status === 201)).toBe(true);
      const found = await samples.run('order-by-reference', edited(await SdkSamples.sample('orders/getOrder.js'), '"1614546769962"', JSON.stringify(paymentReference)));
      expect(found.printed, found.stdout + found.stderr).toMatchObject({ status: 'SUCCESS', data: { code: '00' } });
      expect(found.printed.data.products.map((line: { orderId: string }) => line.orderId)).toEqual(['22S789420214623', '1a3sa82748272556947']);
      // As shipped, the samples name a payment the merchant never made: the provider's 404.
      const unknown = await samples.run('order-after-payment-as-shipped', await SdkSamples.sample('orders/createAfterPayment.js'));
      expect(unknown.printed, unknown.stdout + unknown.stderr).toMatchObject({ name: 'HttpClientException', statusCode: 404 });
    },
    TIMEOUT,
  );

  it(
    'AccountsService.BanksList (samples/account/bankList.js) and MobileMoneyCheckout.MobileMoneyNetworks (samples/momo/getMobileNetworks.js): the banks with the account minimum, and the networks',
    async () => {
      const banks = await samples.run('bank-list', await SdkSamples.sample('account/bankList.js'));
      expect(banks.printed, banks.stdout + banks.stderr).toMatchObject({ status: 'SUCCESS', data: { code: '00', message: 'Successful' } });
      const list = banks.printed.data.merchantBanks as Array<{ bankCode: string; minimumAmount: number; requiredFields: Record<string, string> }>;
      expect(list.map((bank) => bank.bankCode)).toEqual(['058', '033', '011', '232', '035', '057']);
      // The figure the catalogue refuses account initiates below (spec, Limits 2).
      expect(new Set(list.map((bank) => bank.minimumAmount))).toEqual(new Set([100]));
      const networks = await samples.run('networks', await SdkSamples.sample('momo/getMobileNetworks.js'));
      expect(networks.printed, networks.stdout + networks.stderr).toMatchObject({ status: 'SUCCESS', data: { code: '00' } });
      expect(networks.printed.data.networks.map((network: { uniqueKey: string }) => network.uniqueKey)).toEqual(['MTN', 'AIRTEL', 'TIG', 'VODAFONE']);
    },
    TIMEOUT,
  );

  it(
    'CardCheckout.Tokenize is sent as GET: the SDK rejects with 405 and a body naming POST, and no card is kept',
    async () => {
      const source = [
        'const { Client, Config, CardCheckout } = require("seerbit-nodejs");',
        'const { SeerBitConfig } = require("./config");',
        'const client = new Client(new Config({ publicKey: SeerBitConfig.PUBLIC_KEY, secretKey: SeerBitConfig.SECRET_KEY, bearerToken: SeerBitConfig.TOKEN }));',
        'new CardCheckout(client).Tokenize({ amount: "0.00", country: "NG", currency: "NGN", cardNumber: "5123450000000008", cvv: "100", expiryMonth: "05", expiryYear: "30", paymentReference: "SDK-TOKENIZE-" + Date.now() })',
        '  .then((res) => console.log(res)).catch((e) => console.log(e));',
      ].join('\n');
      const before = (await storedPayments()).filter((payment) => payment.status === 'TOKENIZED').length;
      const run = await samples.run('tokenize', source);
      expect(run.printed, run.stdout + run.stderr).toMatchObject({ name: 'HttpClientException', statusCode: 405 });
      expect(run.printed.responseBody).toMatch(/\bPOST\b/);
      expect((await storedPayments()).filter((payment) => payment.status === 'TOKENIZED')).toHaveLength(before);
    },
    TIMEOUT,
  );

  it.each([
    ['CardCheckout.RefundPreAuth (the refund sample calling RefundPreAuth)', 'card/refundPayment.js', '/payments/refund', ['checkout.Refund(payload)', 'checkout.RefundPreAuth(payload)']],
    ['CardCheckout.CancelPreAuth (samples/card/cancelPayment.js)', 'card/cancelPayment.js', '/payments/cancel', undefined],
    ['CardCheckout.CapturePreAuth (samples/card/capturePayment.js)', 'card/capturePayment.js', '/payments/capture', undefined],
    ['CardCheckout.AuthorizePreAuthWithToken (samples/card/authorizePreAuthWithToken.js)', 'card/authorizePreAuthWithToken.js', '/payments/authorise', undefined],
  ] as const)(
    '%s is sent as GET: the SDK rejects with 405 and a body naming POST',
    async (_title, sample, path, edit) => {
      const source = await SdkSamples.sample(sample);
      const run = await samples.run(path.slice(1).replace('/', '-'), edit ? edited(source, edit[0], edit[1]) : source);
      expect(run.printed, run.stdout + run.stderr).toMatchObject({ name: 'HttpClientException', statusCode: 405 });
      expect(run.printed.responseBody).toMatch(/\bPOST\b/);
      const entries = (await control.send('GET', '/requests', { query: { path } })).body.requests;
      expect(entries.some((entry: any) => entry.method === 'GET' && entry.status === 405), JSON.stringify(entries)).toBe(true);
    },
    TIMEOUT,
  );
});
