// Benchmark: heap in use as the request journal fills and wraps around.
// Starts a sandbox in-process (dist/, in memory) with a journal of 1000
// entries, sends 1x, 5x, 10x and 20x that many Payments API requests over
// loopback, and after each step forces a GC and prints heapUsed and the
// journal's count. The requests are initiates below the minimum amount (S7),
// which store nothing, so what grows is the journal alone.
// Usage: npm run build && node --expose-gc bench/journal-memory.mjs [--concurrency 8]
// Prints figures; it asserts nothing.
import { parseArgs } from 'node:util';
import { startSandbox } from '../dist/index.js';

const { values } = parseArgs({
  options: {
    concurrency: { type: 'string', default: '8' },
  },
});
if (typeof globalThis.gc !== 'function') {
  console.error('run with node --expose-gc bench/journal-memory.mjs');
  process.exit(1);
}

const JOURNAL_SIZE = 1000;
const STEPS = [1, 5, 10, 20];
const concurrency = Number(values.concurrency);

const sandbox = await startSandbox({ port: 0, journalSize: JOURNAL_SIZE, seed: 'journal-memory' });
const publicKey = 'SBTESTPUBK_journalmemory01';
const secretKey = 'SBTESTSECK_journalmemory01';
const exchanged = await fetch(`${sandbox.apiBase}/encrypt/keys`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ key: `${secretKey}.${publicKey}` }),
});
const token = (await exchanged.json()).data.EncryptedSecKey.encryptedKey;
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

let sent = 0;
let failures = 0;
async function send(count) {
  const target = sent + count;
  const worker = async () => {
    while (sent < target) {
      const n = sent++;
      const response = await fetch(`${sandbox.apiBase}/payments/initiates`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          publicKey, paymentType: 'ACCOUNT', paymentReference: `JOURNAL-MEM-${n}`, amount: '99.00',
          currency: 'NGN', country: 'NG', accountNumber: '0123456789', bankCode: '058',
        }),
      });
      const body = await response.json();
      if (response.status !== 200 || body.data?.code !== 'S7') failures += 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

const mib = (bytes) => (bytes / 1024 / 1024).toFixed(1);
function measure(label) {
  globalThis.gc();
  globalThis.gc();
  const { heapUsed } = process.memoryUsage();
  const stored = sandbox.store.payments(publicKey).length;
  console.log(`${label.padEnd(22)} requests ${String(sent).padStart(6)}   heapUsed ${mib(heapUsed).padStart(6)} MiB   journal count ${String(sandbox.journal.count).padStart(5)} / ${sandbox.journal.capacity}   payments stored ${stored}`);
}

console.log(`journal size ${JOURNAL_SIZE}, store in memory, ${concurrency} requests in flight, node ${process.version}`);
measure('before any request');
for (const multiple of STEPS) {
  await send(multiple * JOURNAL_SIZE - sent);
  measure(`${multiple}x journal size`);
}
if (failures > 0) console.log(`${failures} requests did not answer 200 S7`);
await sandbox.close();
