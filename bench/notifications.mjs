// Benchmark: what notifications cost. The disk sandbox with notifications
// off and on (--webhook-url at an acknowledging receiver,
// bench/peers/ack-receiver.mjs, on core 1 beside the load generator), each
// pinned to core 0 and loaded with card initiates that decline at once (each
// one a stored payment and, with notifications on, one `transaction`
// event); the order alternates from round to round. For the sandbox with
// notifications on it also prints how long the deliveries took to drain
// after the load stopped, the delay from a change to its acknowledgement
// (delivery made -> its acknowledged attempt answered, from the delivery
// records), how many were delivered, and the server's RSS after each load.
// Usage: npm run bench:notifications -- [--seconds 10] [--rounds 3] [--warmup 2] [--connections 10] [--dir TMPDIR]
// Prints figures; it asserts nothing.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, request } from './support/http.mjs';
import { declinedCardBody, MERCHANT } from './support/initiate.mjs';
import { killChildrenOnExit, pinSelf } from './support/processes.mjs';
import { filesystemOf, fixed, median, printMachine, printTable } from './support/report.mjs';
import { runLoad } from './support/run-load.mjs';
import { SERVERS, startReceiver, startServer } from './support/servers.mjs';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '10' },
    dir: { type: 'string', default: tmpdir() },
  },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const warmupSeconds = Number(values.warmup);
const connections = Number(values.connections);
const DRAIN_WITHIN_MS = 120_000;

killChildrenOnExit();
pinSelf(1);
const folder = mkdtempSync(join(values.dir, 'sandbox-notifications-'));
process.on('exit', () => rmSync(folder, { recursive: true, force: true }));
const receiver = await startReceiver(await freePort());
process.on('exit', () => void receiver.stop());

printMachine('POST /payments/initiates (a card that declines at once: one notification each), notifications off and on');
console.log(`  load:     autocannon on core 1, ${connections} connections, ${warmupSeconds} s warm-up + ${seconds} s per server per round, ${rounds} round(s), servers on core 0`);
console.log(`  receiver: acknowledges at once, on core 1; store in ${folder} (${filesystemOf(folder)})`);
console.log('');

const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;
const control = (base, path) => request(`${base}/__sandbox${path}`).then(({ status, text }) => (status === 200 ? JSON.parse(text) : Promise.reject(new Error(`${path} answered ${status}`))));

// Every delivery of the merchant, newest first, a page of 1000 at a time.
async function allDeliveries(base) {
  const rows = [];
  let cursor;
  do {
    const page = await control(base, `/webhooks/deliveries?publicKey=${MERCHANT.publicKey}&limit=1000${cursor ? `&cursor=${cursor}` : ''}`);
    rows.push(...page.deliveries);
    cursor = page.next;
  } while (cursor);
  return rows;
}

const KINDS = ['disk', 'notify'];
const results = Object.fromEntries(KINDS.map((kind) => [kind, []]));
for (let round = 1; round <= rounds; round += 1) {
  for (const kind of round % 2 === 1 ? KINDS : [...KINDS].reverse()) {
    const dataFile = join(folder, `round-${round}-${kind}`, 'store.json');
    mkdirSync(join(folder, `round-${round}-${kind}`), { recursive: true });
    const server = await startServer(kind, { port: await freePort(), dataFile, webhookUrl: receiver.url });
    try {
      const token = await server.token();
      const url = `${server.apiBase}/payments/initiates`;
      const check = await request(url, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: declinedCardBody(`BENCH-CHECK-${round}-${kind}`) });
      if (check.status !== 200) console.log(`  ! ${server.name} answered the initiate with ${check.status}: ${check.text.slice(0, 200)}`);
      const load = await runLoad({ url, token, connections, seconds, warmupSeconds, body: 'declined-card' });
      const result = { load, rssMb: rssMb(server.child.pid) };
      if (kind === 'notify') {
        const stopped = Date.now();
        let scheduled = Infinity;
        while (scheduled > 0 && Date.now() - stopped < DRAIN_WITHIN_MS) {
          scheduled = (await control(server.base, `/webhooks/deliveries/count?publicKey=${MERCHANT.publicKey}&state=scheduled`)).count;
          if (scheduled > 0) await new Promise((resolve) => setTimeout(resolve, 20));
        }
        result.drainMs = Date.now() - stopped;
        const deliveries = await allDeliveries(server.base);
        const acknowledged = deliveries.map((d) => d.attempts.find((a) => a.acknowledged)).filter(Boolean);
        result.made = deliveries.length;
        result.delivered = deliveries.filter((d) => d.state === 'delivered').length;
        result.firstTry = deliveries.filter((d) => d.state === 'delivered' && d.attempts.length === 1).length;
        const lags = deliveries
          .map((d) => [d, d.attempts.find((a) => a.acknowledged)])
          .filter(([, a]) => a)
          .map(([d, a]) => Date.parse(a.at) + a.latencyMs - Date.parse(d.createdAt))
          .sort((a, b) => a - b);
        const at = (p) => lags[Math.min(lags.length - 1, Math.ceil(p * lags.length) - 1)] ?? NaN;
        result.lag = { p50: at(0.5), p99: at(0.99), max: lags.at(-1) ?? NaN };
        result.acknowledged = acknowledged.length;
        result.rssAfterDrainMb = rssMb(server.child.pid);
      }
      results[kind].push(result);
      const extra = kind === 'notify' ? `  events ${result.made}, delivered ${result.delivered} (${result.firstTry} at the first attempt), drained ${fixed(result.drainMs)} ms after the load, change -> acknowledged p50 ${fixed(result.lag.p50)} ms p99 ${fixed(result.lag.p99)} ms max ${fixed(result.lag.max)} ms` : '';
      console.log(`  round ${round}  ${server.name.padEnd(34)} ${fixed(load.requestsPerSecond).padStart(6)} req/s  p50 ${fixed(load.latency.p50, 2)} ms  p99 ${fixed(load.latency.p99, 2)} ms  non-2xx ${load.non2xx}  RSS ${fixed(result.rssMb)} MB${extra}`);
    } finally {
      await server.stop();
    }
  }
}

const med = (kind, pick) => median(results[kind].map(pick));
console.log('');
printTable(
  ['server', 'median req/s', 'p50 ms', 'p99 ms', 'RSS after load MB', 'events', 'delivered', 'drained after ms', 'change -> ack p50 ms', 'p99 ms', 'max ms'],
  KINDS.map((kind) => [
    SERVERS[kind].name,
    fixed(med(kind, (r) => r.load.requestsPerSecond)),
    fixed(med(kind, (r) => r.load.latency.p50), 2),
    fixed(med(kind, (r) => r.load.latency.p99), 2),
    fixed(med(kind, (r) => r.rssMb)),
    ...(kind === 'notify'
      ? [med(kind, (r) => r.made), med(kind, (r) => r.delivered), fixed(med(kind, (r) => r.drainMs)), fixed(med(kind, (r) => r.lag.p50)), fixed(med(kind, (r) => r.lag.p99)), fixed(Math.max(...results[kind].map((r) => r.lag.max)))]
      : ['-', '-', '-', '-', '-', '-']),
  ]),
);
console.log('  medians over the rounds; max: the largest of all rounds. The receiver answered', await receiver.received(), 'notifications in all.');
console.log(`  ratio of median req/s, notifications on / off: ${fixed(med('notify', (r) => r.load.requestsPerSecond) / med('disk', (r) => r.load.requestsPerSecond), 2)}`);

// The receiver is a child process: stopped here, or it would keep this benchmark from ending.
await receiver.stop();
