// Benchmark: does the go-live report answer in time at a merchant with
// 100,000 payments? Starts the built sandbox in memory as a process
// (core 0) and puts, in one PUT /__sandbox/snapshot, --payments payments of
// one merchant (methods and outcomes mixed, each with the history a real
// payment has: created pending, then settled) and --deliveries deliveries
// with their attempts (a share unacknowledged, retried, sent again, or
// claiming success and queried after); the merchant's facts record key
// exchanges, reused references and warnings. Then, from this process
// (core 1), one request at a time on a kept-alive connection, it times
// GET /__sandbox/go-live/{publicKey} over --rounds rounds, from the request
// to the last byte of the answer (the first apart: the sandbox's first report
// after the load), and, for scale, GET /__sandbox/overview
// of the same state in the same rounds.
// Usage: npm run bench:go-live -- [--payments 100000] [--deliveries 20000] [--rounds 30]
// Prints figures next to the 500 ms target (issue 39); it asserts nothing.
import { createHmac } from 'node:crypto';
import http from 'node:http';
import { parseArgs } from 'node:util';
import { freePort, request } from './support/http.mjs';
import { sampleRecords } from './support/preload.mjs';
import { killChildrenOnExit, pinSelf } from './support/processes.mjs';
import { fixed, max, median, printMachine, printTable } from './support/report.mjs';
import { startServer } from './support/servers.mjs';

const { values } = parseArgs({
  options: {
    payments: { type: 'string', default: '100000' },
    deliveries: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '30' },
  },
});
const PAYMENTS = Number(values.payments);
const DELIVERIES = Number(values.deliveries);
const ROUNDS = Number(values.rounds);
const TARGET_MS = 500;
const MB = 2 ** 20;
const BIG = { publicKey: 'SBTESTPUBK_golivebench01', secretKey: 'SBTESTSECK_golivebench01' };

killChildrenOnExit();
pinSelf(1);
printMachine(`The go-live report of a merchant with ${PAYMENTS} payments and ${DELIVERIES} deliveries, ${ROUNDS} rounds`);
console.log('  servers:  the sandbox in memory as a process on core 0; this client on core 1, one request at a time on one kept-alive connection');
console.log('');

const linkingReferenceOf = (paymentReference) =>
  `SBLNK_${createHmac('sha256', BIG.secretKey).update(`${BIG.publicKey}:${paymentReference}`).digest('hex').slice(0, 20)}`;

// Outcomes as a busy merchant's payments meet them; every payment begins pending.
const ENDS = [
  ...Array(12).fill({ status: 'SUCCESSFUL', code: '00' }),
  ...Array(4).fill({ status: 'PENDING', code: '20' }),
  ...Array(3).fill({ status: 'FAILED', code: 'S12' }),
];
const METHODS = ['ACCOUNT', 'CARD', 'CARD', 'TRANSFER', 'MOMO', 'USSD'];

const sample = await sampleRecords();
const buildStart = performance.now();
const now = Date.now();
const payments = [];
for (let n = 0; n < PAYMENTS; n += 1) {
  const { status, code } = ENDS[n % ENDS.length];
  const paymentReference = `GOLIVE-BENCH-${String(n).padStart(6, '0')}`;
  const at = new Date(now - (PAYMENTS - n) * 1000).toISOString();
  const { due, ...rest } = sample.payment;
  const history = [{ at, status: 'PENDING', code: '20', scenario: 'account-pending', event: 'create' }];
  if (status !== 'PENDING') history.push({ at, status, code, scenario: 'bench', event: 'settle' });
  const payment = { ...rest, publicKey: BIG.publicKey, paymentReference, linkingReference: linkingReferenceOf(paymentReference), method: METHODS[n % METHODS.length], status, code, history, createdAt: at, updatedAt: at };
  if (status === 'PENDING') payment.due = { at: new Date(Date.parse(at) + 86_400_000).toISOString(), event: 'expire' };
  payments.push(payment);
}
const deliveries = [];
for (let n = 0; n < DELIVERIES; n += 1) {
  const payment = payments[(n * 5) % payments.length];
  const at = payment.createdAt;
  const later = new Date(Date.parse(at) + 2000).toISOString();
  const acknowledged = n % 7 !== 0;
  const attempts = [{ at, url: 'http://127.0.0.1:9/webhook', ackReference: `ack_${n}`, latencyMs: 3, acknowledged, ...(acknowledged ? { status: 200 } : { status: 200, reason: 'the answer has no ackReference' }) }];
  if (!acknowledged) attempts.push({ ...attempts[0], at: later, acknowledged: true, reason: undefined });
  deliveries.push({
    id: `dlv_${n.toString(16).padStart(20, '0')}`, publicKey: BIG.publicKey, paymentReference: payment.paymentReference,
    event: { eventType: n % 50 === 0 ? 'dispute' : 'transaction', eventDate: at.slice(0, 19).replace('T', ' '), eventId: `evt_golive_${n % (DELIVERIES - 100)}`, data: { code: payment.code } },
    state: 'delivered', schedule: 'current', ackReference: `ack_${n}`, attempts: attempts.map(({ reason, ...attempt }) => (reason ? { ...attempt, reason } : attempt)), sequence: n + 1,
    ...(payment.code === '00' && n % 3 !== 0 ? { verifiedAt: later } : {}),
    createdAt: at, updatedAt: at,
  });
}
const since = new Date(now - (PAYMENTS + 10) * 1000).toISOString();
const warnings = Array.from({ length: 10 }, (_, n) => ({ warning: `field${n}: a JSON number, the spec sends a string`, count: n + 1, requestId: n + 1, at: since }));
const reused = Array.from({ length: 50 }, (_, n) => ({ reference: `GOLIVE-BENCH-${String(n).padStart(6, '0')}`, operation: 'initiatePayment', requestId: 100 + n, at: since }));
const document = {
  version: 3,
  merchants: [{ ...BIG, createdAt: since, goLive: { since, exchanges: { count: 400, first: since, last: since }, reused, reusedTotal: 75, warnings } }],
  payments, orders: [], webhooks: [{ publicKey: BIG.publicKey, url: 'http://127.0.0.1:9/webhook', schedule: 'current', updatedAt: since }], clocks: [], deliveries,
};
const body = JSON.stringify(document);
console.log(`  built:    the snapshot document, ${fixed(body.length / MB, 1)} MB, in ${fixed(performance.now() - buildStart)} ms`);

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const server = await startServer('memory', { port: await freePort() });
try {
  const control = `${server.base}/__sandbox`;
  const loaded = await request(`${control}/snapshot`, { method: 'PUT', body, timeoutMs: 300_000 });
  if (loaded.status !== 200) throw new Error(`PUT /__sandbox/snapshot answered ${loaded.status}: ${loaded.text.slice(0, 300)}`);
  const cases = [
    { name: 'go-live report', path: `/go-live/${BIG.publicKey}` },
    { name: 'overview (for scale)', path: '/overview' },
  ];
  const times = new Map(cases.map((one) => [one.name, []]));
  const sizes = new Map();
  let verdict;
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const one of cases) {
      const start = performance.now();
      const answer = await request(`${control}${one.path}`, { agent, timeoutMs: 60_000 });
      const ms = performance.now() - start;
      if (answer.status !== 200) throw new Error(`GET ${one.path} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
      times.get(one.name).push(ms);
      sizes.set(one.name, Buffer.byteLength(answer.text));
      if (one.name === 'go-live report') verdict = JSON.parse(answer.text);
    }
  }
  const p95 = (list) => [...list].sort((a, b) => a - b)[Math.ceil(list.length * 0.95) - 1];
  printTable(
    ['request', 'ms first', 'ms median', 'ms p95', 'ms max', 'target ms', 'within', 'answer KB'],
    cases.map((one) => {
      const ms = times.get(one.name);
      const target = one.name === 'go-live report' ? TARGET_MS : '-';
      return [one.name, fixed(ms[0], 1), fixed(median(ms), 1), fixed(p95(ms), 1), fixed(max(ms), 1), target, target === '-' ? '-' : max(ms) < TARGET_MS ? 'yes' : 'no', fixed(sizes.get(one.name) / 1024, 1)];
    }),
  );
  console.log('');
  console.log(`  the report: verdict ${verdict.verdict}; ${verdict.checks.map((check) => `${check.id} ${check.status}`).join(', ')}`);
} finally {
  agent.destroy();
  await server.stop();
}
