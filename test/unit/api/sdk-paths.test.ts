import { inProcess, type InProcessRequest } from '../../support/in-process.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../src/index.js';
import { accountPayment, ApiClient, cardPayment, checkoutLink, freshReference, momoPayment, order, sandboxWithMerchant, type TestMerchant } from '../../support/sandbox.js';

/**
 * Every request the provider's SDKs make to the paths the sandbox serves
 * (README, "Endpoints"; "surface.md N" below is a section of the notes on the
 * provider's SDK surface, read from the SDKs endpoint by endpoint), with the
 * method, path shape, credentials and body each SDK really sends: none may
 * answer 404, which is what a path the sandbox does not serve answers. Where
 * an SDK sends the wrong method, the answer is 405 naming the right one in
 * `Allow`, which tells its user what to change. What a path names (a payment,
 * an order, a subscription) exists first, so that the provider's own 404 for
 * an unknown resource cannot pass for a missing path. Virtual accounts,
 * payment links, invoices, payouts, in-store terminals and the v1 APIs are
 * not served by design and are not here.
 */

/** Who sends a request: one of the provider's SDKs, or its documentation for a path no SDK calls. */
type Caller = 'Node' | 'Python' | 'PHP' | 'Java' | '.NET' | 'Go' | 'docs';

/** One request as an SDK sends it. */
interface SdkRequest {
  caller: Caller;
  /** the SDK's function that sends it */
  call: string;
  method: 'GET' | 'POST' | 'PUT';
  /** the path as the SDK builds it; `{name}` is a value of the set-up, `{name|upper}` that value upper-cased */
  shape: string;
  auth: 'Bearer' | 'Basic' | 'none';
  /** the body as the SDK sends it, a GET's included (the Node SDK sends its GETs with one) */
  body?: () => unknown;
  /** the method the sandbox names in `Allow` when it refuses this SDK's method with 405 */
  allow?: string;
}

let sandbox: Sandbox;
let api: ApiClient;
let merchant: TestMerchant;
/** The values the path shapes name, created in the set-up. */
const values: Record<string, string> = {};
/** What each request was answered, for the printed table. */
const answered: Array<{ caller: Caller; method: string; shape: string; status: number; call: string }> = [];

const CARD = { cardNumber: '5123450000000008', cvv: '100', expiryMonth: '05', expiryYear: '30' };
const CUSTOMER = { email: 'kolade@example.com', fullName: 'Kolade Samuel', mobileNumber: '08033456500' };
const CALLBACK = 'https://merchant.example.com/callback';

/** Sends one request as the merchant, `auth` deciding the credentials. */
function send(method: SdkRequest['method'], path: string, auth: SdkRequest['auth'], body?: unknown): InProcessRequest {
  let call = inProcess(sandbox)[method === 'GET' ? 'get' : method === 'PUT' ? 'put' : 'post'](path);
  if (auth === 'Bearer') call = call.set('Authorization', `Bearer ${merchant.token}`);
  if (auth === 'Basic') call = call.set('Authorization', merchant.basic);
  return body === undefined ? call : call.send(body as object);
}

/** A payment an initiate left waiting for its OTP; its linkingReference. */
async function pending(body: Record<string, unknown>): Promise<string> {
  const answer = await api.as(merchant, 'POST', '/payments/initiates', body);
  const linkingReference = answer.body?.data?.payments?.linkingReference;
  if (typeof linkingReference !== 'string') throw new Error(`initiate answered ${answer.status} ${JSON.stringify(answer.body)}`);
  return linkingReference;
}

/** A card payment paid with its OTP; its paymentReference. */
async function paidCard(): Promise<string> {
  const body = cardPayment();
  const paid = await api.as(merchant, 'POST', '/payments/validate', { linkingReference: await pending(body), otp: '123456' });
  if (paid.body?.data?.code !== '00') throw new Error(`validate answered ${paid.status} ${JSON.stringify(paid.body)}`);
  return String(body.paymentReference);
}

/** A card pre-authorisation, AUTHORIZED; its paymentReference. */
async function authorised(): Promise<string> {
  const body = preauth();
  const answer = await api.send('POST', '/payments/authorise', body, merchant.basic);
  if (answer.body?.data?.payments?.status !== 'AUTHORIZED') throw new Error(`authorise answered ${answer.status} ${JSON.stringify(answer.body)}`);
  return body.paymentReference;
}

// The bodies, as surface.md shows them (the section is named at each).

/** 3.1, a one-time card. */
const preauth = () => ({ paymentReference: freshReference(), publicKey: merchant.publicKey, ...CARD, currency: 'NGN', country: 'NG', productDescription: 'preauth test capture', amount: '100.00', email: CUSTOMER.email, fullName: CUSTOMER.fullName });
/** 3.1, a stored card. */
const preauthWithToken = () => ({ paymentReference: freshReference(), publicKey: merchant.publicKey, cardToken: values.cardToken, callbackUrl: CALLBACK, currency: 'NGN', country: 'NG', productDescription: 'preauth with token', amount: '100.00', email: CUSTOMER.email, fullName: CUSTOMER.fullName });
/** 3.2: card fields and a callbackUrl. */
const preauth3ds = () => ({ ...preauth(), callbackUrl: CALLBACK });
/** 3.3, of an authorisation of its own. */
const capture = async () => ({ paymentReference: await authorised(), currency: 'NGN', country: 'NG', productDescription: 'preauth test capture', amount: '40.00', publicKey: merchant.publicKey });
/** The spec's refund, of a paid payment of its own. */
const refund = async () => ({ publicKey: merchant.publicKey, paymentReference: await paidCard(), amount: '50.00', currency: 'NGN', country: 'NG' });
/** The spec's cancel, of an authorisation of its own. */
const cancel = async () => ({ publicKey: merchant.publicKey, paymentReference: await authorised(), country: 'NG' });
/** 3.4, a card charged at once. */
const charge = () => ({ publicKey: merchant.publicKey, amount: '100.00', ...CUSTOMER, currency: 'NGN', country: 'NG', paymentReference: freshReference(), productId: 'PROD-7', productDescription: 'direct charge', ...CARD, pin: '1234' });
/** 3.4, the PHP SDK's stored card. */
const chargeWithToken = () => ({ publicKey: merchant.publicKey, amount: '100.00', ...CUSTOMER, currency: 'NGN', country: 'NG', paymentReference: freshReference(), productId: 'PROD-7', productDescription: 'direct charge', cardToken: values.cardToken });
/** 5.1: amount 0.00. */
const tokenize = () => ({ publicKey: merchant.publicKey, amount: '0.00', ...CUSTOMER, currency: 'NGN', country: 'NG', paymentReference: freshReference(), productId: 'PROD-7', productDescription: 'card token', ...CARD });
/** 5.2 (the PHP SDK adds `tokenize`). */
const createToken = (fields: Record<string, unknown> = {}) => ({ publicKey: merchant.publicKey, amount: '100.00', ...CUSTOMER, redirectUrl: CALLBACK, currency: 'NGN', country: 'NG', paymentReference: freshReference(), paymentType: 'CARD', ...CARD, pin: '1234', ...fields });
/** 5.3. */
const chargeToken = () => ({ publicKey: merchant.publicKey, amount: '110.00', paymentReference: freshReference(), authorizationCode: values.tokenCode });
/** 5.4: a JSON array. */
const bulkCharge = () => [chargeToken(), chargeToken()];
/** 4: the nested shape with a lower-case linkingreference (Python, Java). */
const cardOtp = async () => ({ transaction: { linkingreference: await pending(cardPayment()), otp: '123456' } });
/** The spec's validate, of a payment of its own. */
const validate = (body: () => Record<string, unknown>) => async () => ({ linkingReference: await pending(body()), otp: '123456' });
/** The spec's hash request (OAS, as surface.md 22.7 reads it). */
const hash = () => ({ publicKey: merchant.publicKey, ...checkoutLink() });
/** 6.1, as the provider's example sends it. */
const subscribes = (fields: Record<string, unknown> = {}) => ({
  publicKey: merchant.publicKey, paymentReference: freshReference(), planId: '', ...CARD, pin: '0999', callbackUrl: CALLBACK, amount: '1000.00', currency: 'NGN',
  productDescription: 'Pilot Test Subscription', productId: 'Terrain', country: 'NG', cardName: CUSTOMER.fullName, billingCycle: 'WEEKLY', email: CUSTOMER.email,
  mobileNumber: CUSTOMER.mobileNumber, customerId: values.customerId, type: '3DSECURE', billingPeriod: '1', subscriptionAmount: true, ...fields,
});
/** 6.3. */
const recurringCharge = () => ({ amount: '200.00', publicKey: merchant.publicKey, email: CUSTOMER.email, allowPartialDebit: 'true', authorizationCode: values.authorizationCode, paymentReference: freshReference(), currency: 'NGN' });
/** 6.4 (resuming, so that what follows still meets an ACTIVE subscription). */
const update = () => ({ amount: '20000.00', currency: 'NGN', country: 'NG', mobileNumber: CUSTOMER.mobileNumber, billingId: values.billingId, publicKey: merchant.publicKey, status: 'ACTIVE' });
/** 7, an order after payment. */
const orderAfterPayment = () => ({ paymentReference: values.paymentReference, publicKey: merchant.publicKey, orders: [{ amount: '100.00', productId: '103', productDescription: 'Laces', currency: 'NGN' }] });
/** The spec's order update: the order's items by orderId. */
const orderUpdate = () => ({ paymentReference: values.paymentReference, publicKey: merchant.publicKey, orders: [{ orderId: 'ORD-1', amount: '1500.00', productId: '101', productDescription: 'Shoes', currency: 'NGN' }] });
/** 10, the documentation's refunds API. */
const refunds = async () => ({ publicKey: merchant.publicKey, amount: '100.00', productDescription: 'refund test', paymentReference: await paidCard() });

const SDK_REQUESTS: SdkRequest[] = [
  // The Node SDK sends its GETs with its payload as a JSON body (surface.md 9), the path's tail in `query` (seerbit-nodejs 0.3.0, lib/src/services).
  // surface.md 1a: the spec's key exchange and hash; Node and PHP take the token from their config, Go and PHP hash nothing.
  ...(['Python', 'Java', '.NET', 'Go'] as const).map((caller): SdkRequest => ({ caller, call: 'encrypt keys', method: 'POST', shape: '/api/v2/encrypt/keys', auth: 'none', body: () => ({ key: `${merchant.secretKey}.${merchant.publicKey}` }) })),
  ...(['Python', 'Java', '.NET'] as const).map((caller): SdkRequest => ({ caller, call: 'hash', method: 'POST', shape: '/api/v2/encrypt/hashs', auth: 'Bearer', body: hash })),

  // surface.md 1a: initiate (Node for mobile money only), hosted checkout, order before payment.
  { caller: 'Node', call: 'Momo.InitializeTransaction', method: 'POST', shape: '/api/v2/payments/initiates', auth: 'Bearer', body: () => ({ publicKey: merchant.publicKey, ...momoPayment() }) },
  ...(['Python', 'PHP', 'Java', '.NET', 'Go'] as const).map((caller): SdkRequest => ({ caller, call: 'card initiate', method: 'POST', shape: '/api/v2/payments/initiates', auth: 'Bearer', body: () => ({ publicKey: merchant.publicKey, ...cardPayment() }) })),
  ...(['Node', 'Python', 'PHP', 'Java', '.NET', 'Go'] as const).map((caller): SdkRequest => ({ caller, call: 'standard checkout', method: 'POST', shape: '/api/v2/payments', auth: 'Bearer', body: () => ({ publicKey: merchant.publicKey, ...checkoutLink() }) })),
  ...(['Node', 'Python', 'PHP', 'Java', '.NET', 'Go'] as const).map((caller): SdkRequest => ({ caller, call: 'order before payment', method: 'POST', shape: '/api/v2/payments/order', auth: 'Bearer', body: () => ({ publicKey: merchant.publicKey, ...order() }) })),

  // surface.md 1a and 7: orders; the Node SDK sends its GETs with a JSON body.
  ...(['.NET', 'Go'] as const).map((caller): SdkRequest => ({ caller, call: 'update orders', method: 'PUT', shape: '/api/v2/products/orders', auth: 'Bearer', body: orderUpdate })),
  { caller: 'Node', call: 'Order.GetOrders', method: 'GET', shape: '/api/v2/products/orders/publicKey/{publicKey}', auth: 'Bearer', body: () => ({ publicKey: merchant.publicKey, query: merchant.publicKey }) },
  ...(['.NET', 'Go'] as const).map((caller): SdkRequest => ({ caller, call: 'orders of the merchant', method: 'GET', shape: '/api/v2/products/orders/publicKey/{publicKey}', auth: 'Bearer' })),
  ...(['Node', '.NET', 'Go'] as const).map((caller): SdkRequest => ({ caller, call: 'order after payment', method: 'POST', shape: '/api/v2/products/orders', auth: 'Bearer', body: orderAfterPayment })),
  { caller: 'Node', call: 'Order.GetOrderByReference', method: 'GET', shape: '/api/v2/products/orders/publicKey/{publicKey}/paymentReference/{paymentReference}', auth: 'Bearer', body: () => ({ publicKey: merchant.publicKey, paymentReference: values.paymentReference, query: `${merchant.publicKey}/paymentReference/${values.paymentReference}` }) },
  ...(['.NET', 'Go'] as const).map((caller): SdkRequest => ({ caller, call: 'order by reference', method: 'GET', shape: '/api/v2/products/orders/publicKey/{publicKey}/paymentReference/{paymentReference}', auth: 'Bearer' })),
  ...(['.NET', 'Go'] as const).map((caller): SdkRequest => ({ caller, call: 'order by orderId', method: 'GET', shape: '/api/v2/products/orders/publicKey/{publicKey}/orderId/{orderId}', auth: 'Bearer' })),

  // surface.md 1a: the OTP of an account or card payment; Go also completes mobile money here, .NET posts its validation to /payments/charge.
  ...(['Python', 'PHP', 'Java', 'Go'] as const).map((caller): SdkRequest => ({ caller, call: 'validate', method: 'POST', shape: '/api/v2/payments/validate', auth: 'Bearer', body: validate(accountPayment) })),
  { caller: 'Go', call: 'mobile money OTP', method: 'POST', shape: '/api/v2/payments/validate', auth: 'Bearer', body: validate(momoPayment) },
  { caller: '.NET', call: 'ValidateTransaction (sent to charge)', method: 'POST', shape: '/api/v2/payments/charge', auth: 'Bearer', body: validate(accountPayment) },
  // surface.md 1a: mobile money OTP; .NET's recurring Initiate posts its subscription here too.
  { caller: '.NET', call: 'mobile money OTP', method: 'POST', shape: '/api/v2/payments/momo/otp', auth: 'Bearer', body: validate(momoPayment) },
  { caller: '.NET', call: 'RecurrentService.Initiate (sent to momo/otp)', method: 'POST', shape: '/api/v2/payments/momo/otp', auth: 'Bearer', body: () => subscribes() },

  // surface.md 1a, 9 and 22.6: refund and cancel; Basic where the SDK sends it, Bearer from Node and .NET, Node as GET.
  { caller: 'Node', call: 'Card.RefundPreAuth', method: 'GET', shape: '/api/v2/payments/refund', auth: 'Bearer', body: refund, allow: 'POST' },
  ...(['Python', 'PHP', 'Java', 'Go'] as const).map((caller): SdkRequest => ({ caller, call: 'refund', method: 'POST', shape: '/api/v2/payments/refund', auth: 'Basic', body: refund })),
  { caller: '.NET', call: 'refund', method: 'POST', shape: '/api/v2/payments/refund', auth: 'Bearer', body: refund },
  { caller: 'Node', call: 'Card.CancelPreAuth', method: 'GET', shape: '/api/v2/payments/cancel', auth: 'Bearer', body: cancel, allow: 'POST' },
  ...(['Python', 'PHP', 'Java', 'Go'] as const).map((caller): SdkRequest => ({ caller, call: 'cancel', method: 'POST', shape: '/api/v2/payments/cancel', auth: 'Basic', body: cancel })),
  { caller: '.NET', call: 'cancel', method: 'POST', shape: '/api/v2/payments/cancel', auth: 'Bearer', body: cancel },

  // surface.md 2: the status query; PHP's status service under /api/v3, its TokenizeService.GetToken under /api/v2.
  { caller: 'Node', call: 'Standard.Verify', method: 'GET', shape: '/api/v2/payments/query/{paymentReference}', auth: 'Bearer', body: () => ({ paymentReference: values.paymentReference, query: values.paymentReference }) },
  ...(['Python', 'PHP', 'Java', '.NET', 'Go'] as const).map((caller): SdkRequest => ({ caller, call: caller === 'PHP' ? 'TokenizeService.GetToken' : 'status query', method: 'GET', shape: '/api/v2/payments/query/{paymentReference}', auth: 'Bearer' })),
  { caller: 'PHP', call: 'TransactionStatusService.ValidateTransactionStatus', method: 'GET', shape: '/api/v3/payments/query/{paymentReference}', auth: 'Bearer' },

  // surface.md 3.1 and 9: pre-authorisation; Node's with a stored card as GET, Basic from Python, PHP, Java and Go.
  { caller: 'Node', call: 'Card.AuthorizePreAuth', method: 'POST', shape: '/api/v2/payments/authorise', auth: 'Bearer', body: preauth },
  { caller: 'Node', call: 'Card.AuthorizePreAuthWithToken', method: 'GET', shape: '/api/v2/payments/authorise', auth: 'Bearer', body: preauthWithToken, allow: 'POST' },
  ...(['Python', 'PHP', 'Java', 'Go'] as const).map((caller): SdkRequest => ({ caller, call: 'authorise', method: 'POST', shape: '/api/v2/payments/authorise', auth: 'Basic', body: preauth })),
  { caller: 'PHP', call: 'CardService.AuthorizeWithToken', method: 'POST', shape: '/api/v2/payments/authorise', auth: 'Basic', body: preauthWithToken },
  { caller: '.NET', call: 'AuthoriseService', method: 'POST', shape: '/api/v2/payments/authorise', auth: 'Bearer', body: preauth },
  // surface.md 3.2: the 3-D Secure pre-authorisation, Bearer.
  ...(['.NET', 'Go'] as const).map((caller): SdkRequest => ({ caller, call: 'authorise 3DS', method: 'POST', shape: '/api/v2/payments/authorise3ds', auth: 'Bearer', body: preauth3ds })),
  // surface.md 3.3 and 9: capture, Node as GET.
  { caller: 'Node', call: 'Card.CapturePreAuth', method: 'GET', shape: '/api/v2/payments/capture', auth: 'Bearer', body: capture, allow: 'POST' },
  ...(['Python', 'PHP', 'Java', 'Go'] as const).map((caller): SdkRequest => ({ caller, call: 'capture', method: 'POST', shape: '/api/v2/payments/capture', auth: 'Basic', body: capture })),
  { caller: '.NET', call: 'capture', method: 'POST', shape: '/api/v2/payments/capture', auth: 'Bearer', body: capture },
  // surface.md 3.4: the direct charge (Node has the resource and no function that sends it); 3.5's /payments/sale cannot run and is not served.
  ...(['Python', 'PHP', 'Java', 'Go'] as const).map((caller): SdkRequest => ({ caller, call: 'charge', method: 'POST', shape: '/api/v2/payments/charge', auth: 'Basic', body: charge })),
  { caller: 'PHP', call: 'CardService.ChargeNon3DSWithToken', method: 'POST', shape: '/api/v2/payments/charge', auth: 'Basic', body: chargeWithToken },
  { caller: '.NET', call: 'Non3DSService', method: 'POST', shape: '/api/v2/payments/charge', auth: 'Bearer', body: charge },

  // surface.md 4: the card OTP; PHP's card service sends it flat, its token service nested with `publickey`.
  ...(['Python', 'Java'] as const).map((caller): SdkRequest => ({ caller, call: 'card OTP', method: 'POST', shape: '/api/v2/payments/otp', auth: 'Bearer', body: cardOtp })),
  { caller: 'PHP', call: 'CardService.ValidateOtp', method: 'POST', shape: '/api/v2/payments/otp', auth: 'Bearer', body: async () => ({ linkingReference: await pending(cardPayment()), otp: '123456', publicKey: merchant.publicKey }) },
  { caller: 'PHP', call: 'TokenizeService.ValidateOtp', method: 'POST', shape: '/api/v2/payments/otp', auth: 'Bearer', body: async () => ({ ...(await cardOtp()), publickey: merchant.publicKey }) },

  // surface.md 5.1 and 9: tokenisation, Node as GET.
  { caller: 'Node', call: 'Card.Tokenize', method: 'GET', shape: '/api/v2/payments/tokenize', auth: 'Bearer', body: tokenize, allow: 'POST' },
  ...(['Python', 'PHP', 'Java', 'Go'] as const).map((caller): SdkRequest => ({ caller, call: 'tokenize', method: 'POST', shape: '/api/v2/payments/tokenize', auth: 'Basic', body: tokenize })),
  { caller: '.NET', call: 'tokenize', method: 'POST', shape: '/api/v2/payments/tokenize', auth: 'Bearer', body: tokenize },
  // surface.md 5.2-5.5: the documentation's token flow and its bulk charge; no SDK searches a batch.
  { caller: 'PHP', call: 'TokenizeService.CreateToken', method: 'POST', shape: '/api/v2/payments/create-token', auth: 'Bearer', body: () => createToken({ tokenize: true }) },
  { caller: 'Go', call: 'card.CreateToken', method: 'POST', shape: '/api/v2/payments/create-token', auth: 'Bearer', body: () => createToken() },
  ...(['PHP', 'Go'] as const).map((caller): SdkRequest => ({ caller, call: 'charge token', method: 'POST', shape: '/api/v2/payments/charge-token', auth: 'Bearer', body: chargeToken })),
  { caller: 'PHP', call: 'TokenizeService.ChargeTokenBulk', method: 'POST', shape: '/api/v2/payments/bulk-tokenize-charge', auth: 'Bearer', body: bulkCharge },
  { caller: 'docs', call: 'bulk charge search', method: 'GET', shape: '/api/v2/payments/bulk-tokenize-charge-search?batchId={batchId}', auth: 'Bearer' },

  // surface.md 6.1: subscriptions (.NET's Initiate goes to momo/otp, above).
  ...(['Node', 'Python', 'PHP', 'Java', 'Go'] as const).map((caller): SdkRequest => ({ caller, call: 'create subscription', method: 'POST', shape: '/api/v2/recurring/subscribes', auth: 'Bearer', body: () => subscribes() })),
  // surface.md 6.2: one subscription; the Java SDK formats the billingId with `%S`, upper-casing it.
  { caller: 'Node', call: 'Recurrent.CheckSubscriptionStatus', method: 'GET', shape: '/api/v2/recurring/billingId/{billingId}', auth: 'Bearer', body: () => ({ billingId: values.billingId, publicKey: merchant.publicKey, query: values.billingId }) },
  ...(['Python', 'PHP', '.NET', 'Go'] as const).map((caller): SdkRequest => ({ caller, call: 'subscription status', method: 'GET', shape: '/api/v2/recurring/billingId/{billingId}', auth: 'Bearer' })),
  { caller: 'Java', call: 'StatusService.getSubscriptionStatus', method: 'GET', shape: '/api/v2/recurring/billingId/{billingId|upper}', auth: 'Bearer' },
  // surface.md 6.3: the authorised debit; PHP switches to Basic.
  ...(['Node', 'Python', 'Java'] as const).map((caller): SdkRequest => ({ caller, call: 'charge subscription', method: 'POST', shape: '/api/v2/recurring/charge', auth: 'Bearer', body: recurringCharge })),
  { caller: 'PHP', call: 'RecurrentService.ChargeSubscription', method: 'POST', shape: '/api/v2/recurring/charge', auth: 'Basic', body: recurringCharge },
  // surface.md 6.4 and 9: the update; Node sends GET, PHP POST with Basic.
  { caller: 'Node', call: 'Recurrent.UpdateRecurringSubscription', method: 'GET', shape: '/api/v2/recurring/updates', auth: 'Bearer', body: update, allow: 'PUT' },
  ...(['Python', 'Java'] as const).map((caller): SdkRequest => ({ caller, call: 'update subscription', method: 'PUT', shape: '/api/v2/recurring/updates', auth: 'Bearer', body: update })),
  { caller: 'PHP', call: 'RecurrentService.UpdateSubscription', method: 'POST', shape: '/api/v2/recurring/updates', auth: 'Basic', body: update, allow: 'PUT' },
  // surface.md 6.5: the merchant's subscriptions; PHP with Basic.
  { caller: 'Node', call: 'Recurrent.GetSubscriptions', method: 'GET', shape: '/api/v2/recurring/publicKey/{publicKey}', auth: 'Bearer', body: () => ({ query: merchant.publicKey }) },
  ...(['Python', 'Java'] as const).map((caller): SdkRequest => ({ caller, call: 'merchant subscriptions', method: 'GET', shape: '/api/v2/recurring/publicKey/{publicKey}', auth: 'Bearer' })),
  { caller: 'PHP', call: 'RecurrentService.GetMerchantSubscription', method: 'GET', shape: '/api/v2/recurring/publicKey/{publicKey}', auth: 'Basic' },
  // surface.md 6.6: a customer's subscriptions, under three path shapes.
  { caller: 'Node', call: 'Recurrent.GetCustomerSubscriptions', method: 'GET', shape: '/api/v2/recurring/publicKey/{publicKey}/customerId/{customerId}', auth: 'Bearer', body: () => ({ customerId: values.customerId, publicKey: merchant.publicKey, query: `${merchant.publicKey}/customerId/${values.customerId}` }) },
  ...(['Python', 'Java'] as const).map((caller): SdkRequest => ({ caller, call: 'customer subscriptions', method: 'GET', shape: '/api/v2/recurring/{publicKey}/customerId/{customerId}', auth: 'Bearer' })),
  { caller: 'PHP', call: 'RecurrentService.GetCustomerSubscription', method: 'GET', shape: '/api/v2/recurring/customerId/{customerId}', auth: 'Basic' },

  // surface.md 8.1 and 8.2: the bank list and the mobile money networks.
  { caller: 'Node', call: 'Bank.BanksList', method: 'GET', shape: '/api/v2/banks/merchant/{publicKey}', auth: 'Bearer', body: () => ({ query: merchant.publicKey }) },
  ...(['Python', 'PHP', 'Java', '.NET'] as const).map((caller): SdkRequest => ({ caller, call: 'bank list', method: 'GET', shape: '/api/v2/banks/merchant/{publicKey}', auth: 'Bearer' })),
  { caller: 'Node', call: 'Momo.MobileMoneyNetworks', method: 'GET', shape: '/api/v2/networks', auth: 'Bearer', body: () => ({}) },
  ...(['Python', 'PHP', 'Java'] as const).map((caller): SdkRequest => ({ caller, call: 'networks', method: 'GET', shape: '/api/v2/networks', auth: 'Bearer' })),

  // surface.md 10: the documentation's refunds API, which no SDK calls.
  { caller: 'docs', call: 'refunds API', method: 'POST', shape: '/api/v2/payments/refunds', auth: 'Bearer', body: refunds },
];

/** The path of a shape, with the set-up's values. */
const pathOf = (shape: string): string =>
  shape.replace(/\{(\w+)(\|upper)?\}/g, (_all, name: string, upper?: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`no value for {${name}} in ${shape}`);
    return encodeURIComponent(upper ? value.toUpperCase() : value);
  });

beforeAll(async () => {
  ({ sandbox, api, merchant } = await sandboxWithMerchant());
  values.publicKey = merchant.publicKey;
  values.customerId = 'CUST-SDK';
  // A paid payment with an order: the status query, the order look-ups and the order after payment name it.
  values.paymentReference = await paidCard();
  const ordered = await api.as(merchant, 'POST', '/products/orders', { paymentReference: values.paymentReference, orders: [{ orderId: 'ORD-1', amount: '1500.00', productId: '101', productDescription: 'Shoes', currency: 'NGN' }] });
  expect(ordered.status, JSON.stringify(ordered.body)).toBe(201);
  values.orderId = 'ORD-1';
  // A paid subscription. Its billingId has no lower-case letter, so the Java SDK's upper-casing names the same one.
  values.billingId = freshReference().toUpperCase();
  const started = await api.as(merchant, 'POST', '/recurring/subscribes', subscribes({ paymentReference: values.billingId }));
  await api.as(merchant, 'POST', '/payments/validate', { linkingReference: started.body.data.payments.linkingReference, otp: '123456' });
  values.authorizationCode = (await api.as(merchant, 'GET', `/recurring/billingId/${values.billingId}`)).body.data.subscriptions.authorizationCode;
  expect(values.authorizationCode).toMatch(/^[0-9a-f]+$/);
  // A paid create-token: its authorizationCode charges the card again.
  const first = createToken();
  const created = await api.as(merchant, 'POST', '/payments/create-token', first);
  await api.as(merchant, 'POST', '/payments/otp', { transaction: { linkingreference: created.body.data.payments.linkingReference, otp: '123456' } });
  values.tokenCode = (await api.as(merchant, 'GET', `/payments/query/${first.paymentReference}`)).body.data.payments.authorizationCode;
  expect(values.tokenCode).toMatch(/^[0-9a-f]+$/);
  // A card token for the stored-card pre-authorisation and charge.
  const tokenized = await api.send('POST', '/payments/tokenize', tokenize(), merchant.basic);
  values.cardToken = tokenized.body.data.payments.card.token;
  expect(values.cardToken, JSON.stringify(tokenized.body)).toEqual(expect.any(String));
  // A batch of the merchant's, when the bulk charge answers; the documentation's example batchId otherwise, which the search answers with an empty page
  // (docs/decisions.md#d60-bulk-token-charge).
  const batch = await send('POST', '/api/v2/payments/bulk-tokenize-charge', 'Bearer', bulkCharge());
  values.batchId = batch.status === 200 ? batch.body.payload.batchId : 'd4wnvzc';
});

afterAll(async () => {
  const width = (pick: (row: (typeof answered)[number]) => string) => Math.max(...answered.map((row) => pick(row).length));
  const [caller, method, shape] = [width((row) => row.caller), width((row) => row.method), width((row) => row.shape)];
  console.log(
    answered.map((row) => `${row.caller.padEnd(caller)}  ${row.method.padEnd(method)}  ${row.shape.padEnd(shape)}  ${row.status}  ${row.call}`).join('\n'),
  );
  await sandbox?.close();
});

describe('the requests of the provider\'s SDKs', () => {
  it.each(SDK_REQUESTS.map((sdk) => [`${sdk.caller} ${sdk.call}: ${sdk.method} ${sdk.shape}`, sdk] as const))('%s', async (_name, sdk) => {
    const path = pathOf(sdk.shape);
    const answer = await send(sdk.method, path, sdk.auth, sdk.body ? await sdk.body() : undefined);
    answered.push({ caller: sdk.caller, method: sdk.method, shape: sdk.shape, status: answer.status, call: sdk.call });
    const what = `${sdk.caller} (${sdk.call}) sends ${sdk.method} ${path} and`;
    expect(answer.status, `${what} gets 404, a path the sandbox does not serve: ${answer.headers['x-sandbox-detail'] ?? JSON.stringify(answer.body)}`).not.toBe(404);
    if (sdk.allow) {
      expect([answer.status, answer.headers.allow], `${what} gets ${answer.status} ${JSON.stringify(answer.body)}`).toEqual([405, sdk.allow]);
      expect(answer.body).toEqual({ message: 'Method Not Allowed', error: `${sdk.method} is not supported by ${path}: send ${sdk.allow}` });
    }
  });
});

describe('the Java SDK\'s upper-cased billingId', () => {
  it('names another subscription when the billingId has lower-case letters: the provider\'s Subscription Not Found, a resource the path does serve', async () => {
    const billingId = freshReference();
    const started = await api.as(merchant, 'POST', '/recurring/subscribes', subscribes({ paymentReference: billingId }));
    await api.as(merchant, 'POST', '/payments/validate', { linkingReference: started.body.data.payments.linkingReference, otp: '123456' });
    expect((await send('GET', `/api/v2/recurring/billingId/${billingId}`, 'Bearer')).status).toBe(200);
    const upper = await send('GET', `/api/v2/recurring/billingId/${billingId.toUpperCase()}`, 'Bearer');
    expect([upper.status, upper.headers['x-sandbox-scenario'], upper.body]).toEqual([404, 'subscription-not-found', { message: 'Subscription Not Found', error: 'NOT_FOUND' }]);
  });
});
