// The QA cockpit's scene: a fixture-like state that gives every view of the
// dashboard something to show, staged on a running sandbox through the
// control API and the Payments API only (the fixtures of examples/fixtures/,
// then a few requests more). Used by the accessibility and layout tests
// (test/browser/cockpit-*.test.ts) and by `npm run screenshots`, so that what
// is checked is what is pictured.
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const FIXTURES = fileURLToPath(new URL('../examples/fixtures/', import.meta.url));

/** The merchants of the scene: two from examples/fixtures/, one of its own. */
export const SCENE_MERCHANTS = Object.freeze({
  /** merchant-day.yaml's: every payment type, a refund, a cancel, an order; then a card paid and refunded with notifications. */
  day: 'SBTESTPUBK_MerchantDay01',
  /** subscription.yaml's: a daily subscription, its clock three days on with the next charge due, a receiver that failed twice. */
  subscriber: 'SBTESTPUBK_Subscriber01',
  /** The scene's own: a declined card, a card awaiting its OTP, a failed account payment, a long reference, an override, a receiver failing four times. */
  qa: 'SBTESTPUBK_CockpitQa0001',
});

const QA_SECRET = 'SBTESTSECK_CockpitQa0001';

/** References a check or a picture opens. */
export const SCENE_REFERENCES = Object.freeze({
  /** A card payment of the `day` merchant, paid then refunded in part: two notifications, the first acknowledged at its second attempt. */
  cardWithDeliveries: 'DAY-CARD-3',
  /** A card payment of the `qa` merchant, declined: its notification's receiver keeps failing. */
  declinedCard: 'QA-CARD-DECLINED',
  /** A reference long enough to be shortened in a narrow cell. */
  longReference: 'QA-CARD-PENDING-0001-WITH-A-RATHER-LONG-REFERENCE',
});

const card = (publicKey, paymentReference, fields = {}) => ({
  publicKey, paymentType: 'CARD', paymentReference, amount: '1500.00', currency: 'NGN', country: 'NG', email: 'ada@example.com', fullName: 'Ada Obi',
  cardNumber: '5123450000000008', cvv: '123', expiryMonth: '09', expiryYear: '30', pin: '1234', redirectUrl: 'https://merchant.example.com/return', ...fields,
});

/**
 * The addresses of the dashboard's views over the scene, each as
 * `{name, view, path}`: `view` is the `data-view` its page draws,
 * `name` the one a screenshot is saved under, `path` the address below the
 * sandbox's base URL. `pictured` is false for an address checked but not
 * pictured (a second look at a view).
 */
export function cockpitAddresses() {
  const dashboard = '/__sandbox/dashboard';
  const merchant = (publicKey) => `${dashboard}/merchants/${encodeURIComponent(publicKey)}`;
  return [
    { name: 'overview', view: 'overview', path: `${dashboard}/`, pictured: true },
    { name: 'merchant', view: 'merchant', path: merchant(SCENE_MERCHANTS.day), pictured: true },
    { name: 'payment', view: 'payment', path: `${merchant(SCENE_MERCHANTS.day)}/payments/${encodeURIComponent(SCENE_REFERENCES.cardWithDeliveries)}`, pictured: true },
    { name: 'notifications', view: 'notifications', path: `${dashboard}/notifications`, pictured: true },
    { name: 'clock', view: 'clock', path: `${dashboard}/clock`, pictured: true },
    // Pictured searched: the whole catalogue is a page some metres long.
    { name: 'scenarios', view: 'scenarios', path: `${dashboard}/scenarios?q=declined`, pictured: true },
    { name: 'journal', view: 'journal', path: `${dashboard}/journal`, pictured: true },
    // The merchant with the long reference and a failing receiver, through a filter given in the address.
    { name: 'merchant-filtered', view: 'merchant', path: `${merchant(SCENE_MERCHANTS.qa)}?status=PENDING&method=CARD`, pictured: false },
    // A go-live report with evidence: the QA merchant's receiver keeps failing.
    { name: 'go-live', view: 'go-live', path: `${merchant(SCENE_MERCHANTS.qa)}/go-live`, pictured: false },
    { name: 'payment-declined', view: 'payment', path: `${merchant(SCENE_MERCHANTS.qa)}/payments/${encodeURIComponent(SCENE_REFERENCES.declinedCard)}`, pictured: false },
    { name: 'scenarios-all', view: 'scenarios', path: `${dashboard}/scenarios`, pictured: false },
    { name: 'not-found', view: 'not-found', path: `${dashboard}/no-such-view`, pictured: false },
  ];
}

/** What the scene adds to merchant-day.yaml: a receiver, a fault on its next event, a card paid and refunded in part. */
function dayAdditions(receiverUrl) {
  const day = SCENE_MERCHANTS.day;
  return {
    version: 1,
    description: "The cockpit scene: the merchant's day with notifications",
    merchant: { publicKey: day, secretKey: 'SBTESTSECK_MerchantDay01' },
    steps: [
      { control: { method: 'PUT', path: `/webhooks/${day}`, body: { url: receiverUrl } } },
      { control: { method: 'POST', path: `/webhooks/${day}/faults`, body: { kind: 'receiver-error', status: 503, attempts: 1, times: 1 } } },
      { id: 'card3', api: { method: 'POST', path: '/payments/initiates', body: card(day, SCENE_REFERENCES.cardWithDeliveries, { amount: '2500.00' }) }, expect: { status: 200, code: 'S20' } },
      { api: { method: 'POST', path: '/payments/validate', body: { linkingReference: '${card3.data.payments.linkingReference}', otp: '123456' } }, expect: { code: '00' } },
      { api: { method: 'POST', path: '/payments/refund', body: { publicKey: day, paymentReference: SCENE_REFERENCES.cardWithDeliveries, amount: '500.00', currency: 'NGN', country: 'NG' } }, expect: { code: '00' } },
    ],
  };
}

/** The scene's own merchant. */
function qaDocument(receiverUrl) {
  const qa = SCENE_MERCHANTS.qa;
  return {
    version: 1,
    description: 'The cockpit scene: a merchant whose receiver fails, with an override',
    merchant: { publicKey: qa, secretKey: QA_SECRET },
    steps: [
      { control: { method: 'PUT', path: `/webhooks/${qa}`, body: { url: receiverUrl } } },
      { control: { method: 'POST', path: `/webhooks/${qa}/faults`, body: { kind: 'receiver-error', status: 500, attempts: 5, times: 1 } } },
      { api: { method: 'POST', path: '/payments/initiates', body: card(qa, SCENE_REFERENCES.declinedCard, { cardNumber: '4000000000000002', amount: '99.99' }) }, expect: { code: 'S12' } },
      { api: { method: 'POST', path: '/payments/initiates', body: card(qa, SCENE_REFERENCES.longReference, { amount: '125000.00' }) }, expect: { code: 'S20' } },
      { id: 'account', api: { method: 'POST', path: '/payments/initiates', body: { publicKey: qa, paymentType: 'ACCOUNT', paymentReference: 'QA-ACCT-FAILED', amount: '150.00', currency: 'NGN', country: 'NG', accountName: 'Ada Obi', accountNumber: '0123456789', bankCode: '058' } }, expect: { code: '20' } },
      { api: { method: 'POST', path: '/payments/validate', body: { linkingReference: '${account.data.payments.linkingReference}', otp: '000000' } }, expect: { code: 'S12' } },
      { control: { method: 'POST', path: '/overrides', body: { scenario: 'card-declined', publicKey: qa, times: 2 } }, expect: { status: 201 } },
    ],
  };
}

/**
 * A merchant's receiver on loopback that acknowledges every notification as
 * the provider's page asks, on `port`, or on a free one when that is taken or 0.
 */
async function startReceiver(port) {
  const server = createServer((request, response) => {
    request.resume().on('end', () => {
      const ackReference = request.headers['x-expected-ack-reference'] ?? '';
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ackReference, status: 'received' }));
    });
  });
  const listen = (at) => new Promise((resolve, reject) => {
    server.once('error', reject).listen(at, '127.0.0.1', () => resolve(server.off('error', reject)));
  });
  await listen(port).catch((error) => (port !== 0 && error.code === 'EADDRINUSE' ? listen(0) : Promise.reject(error)));
  return { url: `http://127.0.0.1:${server.address().port}/webhook`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A control API request; throws with the answer when it is not 2xx. */
async function control(base, method, path, body) {
  const response = await fetch(`${base}/__sandbox${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} /__sandbox${path}: ${response.status} ${text}`);
  return text === '' ? undefined : JSON.parse(text);
}

/** A Payments API request, as the merchant's integration sends it; throws when it is not answered 200. */
async function paymentsApi(base, path, body, token) {
  const response = await fetch(`${base}/api/v2${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`POST /api/v2${path}: ${response.status} ${text}`);
  return JSON.parse(text);
}

/** Waits until every delivery of a merchant has made its first attempt (deliveries never hold up an answer: they are made after it). */
async function firstAttemptsMade(base, publicKey, timeoutMs = 10_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { deliveries } = await control(base, 'GET', `/webhooks/deliveries?publicKey=${publicKey}&limit=1000`);
    if (deliveries.length > 0 && deliveries.every((delivery) => delivery.attempts.length > 0)) return;
    if (Date.now() > until) throw new Error(`the deliveries of ${publicKey} made no first attempt within ${timeoutMs} ms: ${JSON.stringify(deliveries.map((d) => [d.paymentReference, d.state]))}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Stages the scene on the sandbox at `base` (its base URL, such as
 * `http://127.0.0.1:4010`, run without a control token) and starts the
 * merchants' receiver on 127.0.0.1 (on `options.receiverPort` if it is free,
 * so that pictures name the same URL each run; by default any free port),
 * which the caller closes with `close()` after the sandbox is done with it.
 * What each view then shows: three merchants, fifteen payments (card, account,
 * transfer, mobile money, a subscription and its three charges, an order;
 * succeeded, failed, pending, refunded, cancelled), deliveries acknowledged,
 * retried and still failing, three clocks moved (the subscriber's three days
 * on, its next charge due), an override, and the journal of it all.
 * @returns {Promise<{merchants: typeof SCENE_MERCHANTS, references: typeof SCENE_REFERENCES, receiverUrl: string, close(): Promise<void>}>}
 * @throws Error naming the request whose answer was not 2xx, or the deliveries that made no attempt in time.
 */
export async function stageCockpitScene(base, { receiverPort = 0 } = {}) {
  const receiver = await startReceiver(receiverPort);
  try {
    const fixture = async (name) => parse(await readFile(`${FIXTURES}${name}`, 'utf8'));
    await control(base, 'POST', '/fixtures', await fixture('merchant-day.yaml'));
    // The fixture's receiver is a port that a reader's own app may hold: the scene's acknowledges instead.
    const subscription = await fixture('subscription.yaml');
    for (const step of subscription.steps) if (step.control?.method === 'PUT' && step.control.path.startsWith('/webhooks/')) step.control.body.url = receiver.url;
    await control(base, 'POST', '/fixtures', subscription);
    await control(base, 'POST', '/fixtures', dayAdditions(receiver.url));
    await control(base, 'POST', '/fixtures', qaDocument(receiver.url));
    await firstAttemptsMade(base, SCENE_MERCHANTS.day);
    await firstAttemptsMade(base, SCENE_MERCHANTS.qa);
    // One minute on: the day's failed first attempt is retried (30 s later) and acknowledged.
    await control(base, 'POST', `/clock/${SCENE_MERCHANTS.day}/advance`, { by: 'PT1M' });
    // Thirteen minutes on: the qa merchant's receiver fails three retries more (30 s, 2 min and 10 min after each failure), and the
    // next is due half an hour after the last: nothing the scene made falls due in real time while a check or a picture runs.
    await control(base, 'POST', `/clock/${SCENE_MERCHANTS.qa}/advance`, { by: 'PT13M' });
    // The QA merchant's integration after the known state, which its go-live report judges: a reference used again.
    const exchanged = await paymentsApi(base, '/encrypt/keys', { key: `${QA_SECRET}.${SCENE_MERCHANTS.qa}` });
    const token = exchanged.data.EncryptedSecKey.encryptedKey;
    await paymentsApi(base, '/payments/initiates', card(SCENE_MERCHANTS.qa, SCENE_REFERENCES.declinedCard, { cardNumber: '4000000000000002', amount: '99.99' }), token);
    return { merchants: SCENE_MERCHANTS, references: SCENE_REFERENCES, receiverUrl: receiver.url, close: receiver.close };
  } catch (error) {
    await receiver.close();
    throw error;
  }
}
