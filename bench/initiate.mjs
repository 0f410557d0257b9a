// Benchmark: start-up time to the first 200 on /__sandbox/health, then
// requests per second for POST /payments/initiates on loopback.
// Usage: npm run build && node bench/initiate.mjs [--seconds 10] [--connections 20] [--data FILE]
// Prints figures; it asserts nothing.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '20' },
    data: { type: 'string' },
    port: { type: 'string', default: '4710' },
  },
});
const folder = mkdtempSync(join(tmpdir(), 'sandbox-bench-'));
const dataFile = values.data ?? join(folder, 'bench.json');
const base = `http://127.0.0.1:${values.port}`;

const started = process.hrtime.bigint();
const child = spawn(process.execPath, ['bin/payments-sandbox.js', '--port', values.port, '--data', dataFile], { stdio: ['ignore', 'ignore', 'inherit'] });
for (;;) {
  try {
    if ((await fetch(`${base}/__sandbox/health`)).status === 200) break;
  } catch {}
  if (process.hrtime.bigint() - started > 20_000_000_000n) throw new Error('no health 200 within 20 s');
  await new Promise((resolve) => setTimeout(resolve, 5));
}
const startupMs = Number(process.hrtime.bigint() - started) / 1e6;
console.log(`start-up to first 200 on /__sandbox/health: ${startupMs.toFixed(0)} ms (process spawn included)`);

const publicKey = 'SBTESTPUBK_benchmark0001';
const secretKey = 'SBTESTSECK_benchmark0001';
const keys = await (await fetch(`${base}/api/v2/encrypt/keys`, { method: 'POST', body: JSON.stringify({ key: `${secretKey}.${publicKey}` }), headers: { 'content-type': 'application/json' } })).json();
const token = keys.data.EncryptedSecKey.encryptedKey;

let n = 0;
const result = await autocannon({
  url: `${base}/api/v2/payments/initiates`,
  connections: Number(values.connections),
  duration: Number(values.seconds),
  method: 'POST',
  headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  requests: [
    {
      setupRequest: (request) => ({
        ...request,
        body: JSON.stringify({
          publicKey, paymentType: 'ACCOUNT', paymentReference: `BENCH-${process.pid}-${n++}`, amount: '150.00',
          currency: 'NGN', country: 'NG', accountNumber: '0123456789', bankCode: '058',
        }),
      }),
    },
  ],
});
console.log(`POST /payments/initiates, ${values.connections} connections, ${values.seconds} s, store on disk (${dataFile}):`);
console.log(`  requests/s: mean ${result.requests.average.toFixed(0)}, p50 ${result.requests.p50}, min ${result.requests.min}`);
console.log(`  latency ms: p50 ${result.latency.p50}, p99 ${result.latency.p99}, max ${result.latency.max}`);
console.log(`  responses: 2xx ${result['2xx']}, non-2xx ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts}`);
child.kill('SIGTERM');
await new Promise((resolve) => child.once('exit', resolve));
if (!values.data) rmSync(folder, { recursive: true, force: true });
