// Benchmark: does the dashboard answer in time at a merchant with 100,000
// payments? Starts the built sandbox in memory as a process (core 0), puts
// --payments payments of one merchant and --others other merchants with
// --each payments each, with a mix of statuses, methods and result codes, and
// --deliveries deliveries in every state, in one PUT /__sandbox/snapshot;
// sends --requests account and declined card initiates of the benchmark
// merchant through the Payments API, so that the journal holds entries to
// filter; then, from this process (core 1), one request at a time on one
// kept-alive connection, times over --rounds rounds each request a dashboard
// page makes:
// - the merchant view's first page: GET /payments?publicKey=K&order=newest&limit=50
// - a filtered search: the same with status=PENDING and q (a reference's text)
// - a filtered page deep in the list: status=SUCCESSFUL&order=newest&limit=50
//   from a cursor --deep matching payments in (found by following `next`)
// - the overview: GET /overview
// - the journal filtered: GET /requests?status=2xx&scenario=<a rule>&limit=50
// - a payment's story: GET /payments/{ref}/story?publicKey=K, of a payment
//   with a delivery and of one the journal holds requests of
// Each time runs from the request to the last byte of the answer.
// Usage: npm run bench:dashboard -- [--payments 100000] [--others 5] [--each 200] [--deliveries 2000] [--requests 2000] [--rounds 30] [--deep 40000]
// Prints figures next to the 500 ms target; it asserts nothing.
import { createHmac } from 'node:crypto';
import http from 'node:http';
import { parseArgs } from 'node:util';
import { freePort, request } from './support/http.mjs';
import { declinedCardBody, exchangeKey, initiateBody, MERCHANT } from './support/initiate.mjs';
import { sampleRecords } from './support/preload.mjs';
import { killChildrenOnExit, pinSelf } from './support/processes.mjs';
import { fixed, max, median, printMachine, printTable } from './support/report.mjs';
import { startServer } from './support/servers.mjs';

const { values } = parseArgs({
  options: {
    payments: { type: 'string', default: '100000' },
    others: { type: 'string', default: '5' },
    each: { type: 'string', default: '200' },
    deliveries: { type: 'string', default: '2000' },
    requests: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '30' },
    deep: { type: 'string', default: '40000' },
  },
});
const PAYMENTS = Number(values.payments);
const OTHERS = Number(values.others);
const EACH = Number(values.each);
const DELIVERIES = Number(values.deliveries);
const REQUESTS = Number(values.requests);
const ROUNDS = Number(values.rounds);
const DEEP = Number(values.deep);
const TARGET_MS = 500;
const MB = 2 ** 20;

/** The merchant of the 100,000 payments. */
const BIG = { publicKey: 'SBTESTPUBK_dashboard000001', secretKey: 'SBTESTSECK_dashboard000001' };

killChildrenOnExit();
pinSelf(1);

printMachine(`The dashboard's requests at a merchant with ${PAYMENTS} payments, ${ROUNDS} rounds`);
console.log('  servers:  the sandbox in memory as a process on core 0; this client on core 1, one request at a time on one kept-alive connection');
console.log(`  state:    merchant ${BIG.publicKey} with ${PAYMENTS} payments; ${OTHERS} other merchants with ${EACH} each; ${DELIVERIES} deliveries; ${REQUESTS} Payments API requests journalled`);
console.log('');

// ---------------------------------------------------------------- the state
const linkingReferenceOf = (merchant, paymentReference) =>
  `SBLNK_${createHmac('sha256', merchant.secretKey).update(`${merchant.publicKey}:${paymentReference}`).digest('hex').slice(0, 20)}`;

// A mix as a busy merchant has it: most paid, some pending (each with its expiry due), some failed, a few refunded or expired.
const MIX = [
  ...Array(12).fill({ status: 'SUCCESSFUL', code: '00', message: 'Transaction successful' }),
  ...Array(4).fill({ status: 'PENDING', code: '20', message: 'Transaction is pending' }),
  ...Array(2).fill({ status: 'FAILED', code: 'S12', message: 'Transaction failed' }),
  { status: 'REFUNDED', code: '00', message: 'Transaction successful' },
  { status: 'EXPIRED', code: '20', message: 'Transaction is pending' },
];
const METHODS = ['ACCOUNT', 'CARD', 'CARD', 'TRANSFER', 'MOMO', 'USSD', 'CHECKOUT'];

/** `count` payments of `merchant` cloned from the sample, one second apart on the merchant's clock, ending now. */
function paymentsOf(merchant, count, sample, tag) {
  const now = Date.now();
  const payments = [];
  for (let n = 0; n < count; n += 1) {
    const { status, code, message } = MIX[n % MIX.length];
    const paymentReference = `${tag}-${String(n).padStart(6, '0')}`;
    const at = new Date(now - (count - n) * 1000).toISOString();
    const { due, ...rest } = sample;
    const payment = {
      ...rest, publicKey: merchant.publicKey, paymentReference, linkingReference: linkingReferenceOf(merchant, paymentReference),
      method: METHODS[n % METHODS.length], status, code, message, createdAt: at, updatedAt: at,
      ...(status === 'REFUNDED' ? { refundedAmount: rest.amount } : {}),
    };
    // A pending payment's lifetime ends a day after it began.
    if (status === 'PENDING') payment.due = { at: new Date(Date.parse(at) + 86_400_000).toISOString(), event: 'expire' };
    payments.push(payment);
  }
  return payments;
}

const STATES = ['delivered', 'delivered', 'delivered', 'scheduled', 'undelivered', 'held', 'withheld'];

/** `count` deliveries of the merchant's first payments, in every state; a third of those not delivered refused at their last attempt. */
function deliveriesOf(merchant, payments, count) {
  const deliveries = [];
  for (let n = 0; n < count; n += 1) {
    const payment = payments[n % payments.length];
    const state = STATES[n % STATES.length];
    const at = payment.createdAt;
    const acknowledged = state === 'delivered';
    const attempts = state === 'withheld' || (state !== 'delivered' && n % 3 === 0)
      ? []
      : [{ at, url: 'http://127.0.0.1:9/webhook', ackReference: `ack_${n}`, latencyMs: 3, acknowledged, ...(acknowledged ? { status: 200 } : { reason: 'connection refused' }) }];
    deliveries.push({
      id: `dlv_${n.toString(16).padStart(20, '0')}`, publicKey: merchant.publicKey, paymentReference: payment.paymentReference,
      event: { eventType: 'transaction', eventDate: at.slice(0, 19).replace('T', ' '), eventId: `evt_dashboard_${n}`, data: { paymentReference: payment.paymentReference } },
      state, schedule: 'current', ackReference: `ack_${n}`, attempts, sequence: n + 1,
      // Due a year on: the sandbox keeps it on the merchant's clock but sends nothing while the benchmark runs.
      ...(state === 'scheduled' ? { dueAt: new Date(Date.now() + 365 * 86_400_000).toISOString() } : {}),
      createdAt: at, updatedAt: at,
    });
  }
  return deliveries;
}

const sample = await sampleRecords();
const buildStart = performance.now();
const others = Array.from({ length: OTHERS }, (_, n) => ({ publicKey: `SBTESTPUBK_dashboardother${n}`, secretKey: `SBTESTSECK_dashboardother${n}` }));
const bigPayments = paymentsOf(BIG, PAYMENTS, sample.payment, 'DASH');
const document = {
  version: 3,
  merchants: [BIG, MERCHANT, ...others].map((merchant) => ({ ...merchant, createdAt: sample.merchant.createdAt })),
  payments: [...bigPayments, ...others.flatMap((merchant, n) => paymentsOf(merchant, EACH, sample.payment, `OTHER${n}`))],
  orders: [],
  webhooks: [BIG, MERCHANT].map(({ publicKey }) => ({ publicKey, url: 'http://127.0.0.1:9/webhook', schedule: 'current', updatedAt: new Date().toISOString() })),
  clocks: [],
  deliveries: deliveriesOf(BIG, bigPayments, DELIVERIES),
};
const body = JSON.stringify(document);
console.log(`  built:    the snapshot document, ${fixed(body.length / MB, 1)} MB, in ${fixed(performance.now() - buildStart)} ms`);

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const server = await startServer('memory', { port: await freePort() });
try {
  const control = `${server.base}/__sandbox`;
  const loadStart = performance.now();
  const loaded = await request(`${control}/snapshot`, { method: 'PUT', body, timeoutMs: 300_000 });
  if (loaded.status !== 200) throw new Error(`PUT /__sandbox/snapshot answered ${loaded.status}: ${loaded.text.slice(0, 300)}`);
  console.log(`  loaded:   PUT /__sandbox/snapshot in ${fixed(performance.now() - loadStart)} ms: ${loaded.text}`);

  // The journal: account initiates (pending) and declined cards of the benchmark merchant, four at a time.
  const journalStart = performance.now();
  const token = await exchangeKey(server.apiBase);
  let sent = 0;
  const sender = async () => {
    const ownAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    while (sent < REQUESTS) {
      const n = sent++;
      const reference = `JOURNAL-${n}`;
      const answer = await request(`${server.apiBase}/payments/initiates`, { method: 'POST', agent: ownAgent, headers: { authorization: `Bearer ${token}` }, body: n % 4 === 3 ? declinedCardBody(reference) : initiateBody(reference) });
      if (answer.status >= 500) throw new Error(`an initiate answered ${answer.status}: ${answer.text.slice(0, 300)}`);
    }
    ownAgent.destroy();
  };
  await Promise.all([sender(), sender(), sender(), sender()]);
  const scenario = JSON.parse((await request(`${control}/requests?limit=1&status=2xx`, { agent })).text).requests[0]?.scenario;
  const held = JSON.parse((await request(`${control}/requests?limit=1`, { agent })).text).total;
  console.log(`  journal:  ${REQUESTS} initiates sent in ${fixed(performance.now() - journalStart)} ms; it holds ${held} entries; filtered on status 2xx and scenario ${scenario}`);

  // The cursor deep in the list: `next` followed, a thousand rows a page, until DEEP matching payments lie behind.
  const deepQuery = `publicKey=${BIG.publicKey}&status=SUCCESSFUL&order=newest`;
  let deepCursor;
  let behind = 0;
  while (behind < DEEP) {
    const page = JSON.parse((await request(`${control}/payments?${deepQuery}&limit=1000${deepCursor ? `&cursor=${deepCursor}` : ''}`, { agent, timeoutMs: 60_000 })).text);
    if (!page.next) break;
    deepCursor = page.next;
    behind += page.payments.length;
  }
  console.log(`  deep:     a cursor with ${behind} matching payments (SUCCESSFUL, newest first) behind it`);

  // Two stories: a payment of the snapshot with its delivery and attempt, and one of the initiates above (another merchant's), its request in the journal.
  const deliveredReference = bigPayments[0].paymentReference;
  const journalledReference = 'JOURNAL-1';
  console.log('');

  const cases = [
    { name: 'merchant view, first page', path: `/payments?publicKey=${BIG.publicKey}&order=newest&limit=50` },
    { name: 'filtered search (status + q)', path: `/payments?publicKey=${BIG.publicKey}&status=PENDING&q=dash-0501&order=newest&limit=50` },
    { name: `filtered page deep in the list (${behind} in)`, path: `/payments?${deepQuery}&limit=50&cursor=${deepCursor}` },
    { name: 'overview', path: '/overview' },
    { name: 'journal filtered (status + scenario)', path: `/requests?status=2xx&scenario=${scenario}&limit=50` },
    { name: "a payment's story (a delivery)", path: `/payments/${deliveredReference}/story?publicKey=${BIG.publicKey}` },
    { name: "a payment's story (its requests)", path: `/payments/${journalledReference}/story?publicKey=${MERCHANT.publicKey}` },
  ];
  const times = new Map(cases.map((one) => [one.name, []]));
  const sizes = new Map();
  const totals = new Map();
  // Round after round, every request once a round: a disturbance of the machine falls on all of them alike.
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const one of cases) {
      const start = performance.now();
      const answer = await request(`${control}${one.path}`, { agent, timeoutMs: 60_000 });
      const ms = performance.now() - start;
      if (answer.status !== 200) throw new Error(`GET ${one.path} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
      times.get(one.name).push(ms);
      sizes.set(one.name, Buffer.byteLength(answer.text));
      const parsed = JSON.parse(answer.text);
      totals.set(one.name, parsed.total ?? '-');
    }
  }
  const p95 = (values) => [...values].sort((a, b) => a - b)[Math.ceil(values.length * 0.95) - 1];
  printTable(
    ['request', 'ms median', 'ms p95', 'ms max', 'target ms', 'within', 'answer KB', 'total'],
    cases.map((one) => {
      const ms = times.get(one.name);
      return [one.name, fixed(median(ms), 1), fixed(p95(ms), 1), fixed(max(ms), 1), TARGET_MS, max(ms) < TARGET_MS ? 'yes' : 'no', fixed(sizes.get(one.name) / 1024, 1), totals.get(one.name)];
    }),
  );
  console.log('');
  for (const one of cases) console.log(`  ${one.name}: GET /__sandbox${one.path.length > 160 ? `${one.path.slice(0, 160)}...` : one.path}`);
} finally {
  agent.destroy();
  await server.stop();
}
