// The load generator, run as its own process (pinned by run-load.mjs):
// autocannon sending the account initiate with a unique paymentReference per
// request, first for `warmupSeconds` (discarded) and then for `seconds`.
// Prints one JSON line: req/s, autocannon's latency histogram (whole ms) and
// the same per-response times at full resolution, and the status counts.
// `body`: `account` (the default) or `declined-card`, a card initiate that fails at once.
// Usage: node bench/support/load.mjs '{"url":...,"token":...,"connections":10,"seconds":10,"warmupSeconds":2}'
import autocannon from 'autocannon';
import { declinedCardBody, initiateBody } from './initiate.mjs';

const { url, token, connections, seconds, warmupSeconds = 0, body = 'account' } = JSON.parse(process.argv[2]);
const prefix = `BENCH-${Date.now().toString(36)}-${process.pid}`;
const [head, tail] = JSON.stringify((body === 'declined-card' ? declinedCardBody : initiateBody)('\u0000')).split('"\\u0000"');
let n = 0;

function run(duration, times) {
  const instance = autocannon({
    url,
    connections,
    duration,
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    requests: [{ setupRequest: (req) => ({ ...req, body: `${head}"${prefix}-${n++}"${tail}` }) }],
  });
  // autocannon keeps 2xx latencies in whole milliseconds; keep its exact per-response times too.
  if (times) instance.on('response', (_client, status, _bytes, ms) => { if (status >= 200 && status < 300) times.push(ms); });
  return instance;
}

const percentile = (sorted, p) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]);

if (warmupSeconds > 0) await run(warmupSeconds);
const times = [];
const result = await run(seconds, times);
times.sort((a, b) => a - b);
const nonOk = Object.fromEntries(Object.entries(result.statusCodeStats).filter(([code]) => !code.startsWith('2')).map(([code, { count }]) => [code, count]));
console.log(JSON.stringify({
  requestsPerSecond: result.requests.average,
  total: result.requests.total,
  duration: result.duration,
  autocannonLatency: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
  latency: { p50: percentile(times, 50), p99: percentile(times, 99), max: times.at(-1) ?? NaN },
  ok: result['2xx'],
  non2xx: result.non2xx,
  nonOk,
  errors: result.errors,
  timeouts: result.timeouts,
}));
