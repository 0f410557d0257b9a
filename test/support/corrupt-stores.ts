import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { merchantRecord, paymentRecord } from '../store/fixtures.js';

/**
 * Store files that are not what the sandbox wrote, one thing broken at a
 * time around a good record: the cases that test/unit/store/corrupt-start.test.ts
 * starts a sandbox on in process, and test/campaign/corrupt-files.test.ts
 * starts the executable on.
 */

const PUBLIC_KEY = 'SBTESTPUBK_corrupt00000001';
const MERCHANT = merchantRecord(PUBLIC_KEY);
// A good record, as the store keeps it: the cases break one thing at a time around it.
const PAYMENT = paymentRecord(PUBLIC_KEY, 'SBREF-CORRUPT-1');
const snapshotOf = (parts: Record<string, unknown>) => JSON.stringify({ version: 1, merchants: {}, payments: {}, orders: {}, ...parts });
const goodLine = JSON.stringify({ kind: 'payment', payment: PAYMENT });

/**
 * Each case: what the snapshot and the log hold (undefined: no such file),
 * which of them the message must name, and whether the executable is tried
 * too (each try starts a process: a few cover the CLI's handling, and
 * startSandbox covers every case).
 */
export const CASES: Array<{ what: string; snapshot?: string; log?: string; names: 'snapshot' | 'log'; cli?: boolean }> = [
  { what: 'a snapshot of null', snapshot: 'null', names: 'snapshot', cli: true },
  { what: 'a snapshot of []', snapshot: '[]', names: 'snapshot' },
  { what: 'a snapshot of "x"', snapshot: '"x"', names: 'snapshot' },
  { what: 'a snapshot of {}', snapshot: '{}', names: 'snapshot' },
  { what: 'a snapshot whose payments are null', snapshot: '{"version":1,"merchants":{},"payments":null,"orders":{}}', names: 'snapshot' },
  { what: "a string in place of a merchant's payments", snapshot: snapshotOf({ merchants: { [PUBLIC_KEY]: MERCHANT }, payments: { [PUBLIC_KEY]: 'x' } }), names: 'snapshot' },
  { what: 'a payment record with no fields', snapshot: snapshotOf({ merchants: { [PUBLIC_KEY]: MERCHANT }, payments: { [PUBLIC_KEY]: { 'SBREF-CORRUPT-1': {} } } }), names: 'snapshot' },
  { what: 'a merchant record that is a number', snapshot: snapshotOf({ merchants: { [PUBLIC_KEY]: 7 } }), names: 'snapshot' },
  { what: 'a log line that is not JSON', log: `${goodLine}\nnot json at all\n${goodLine}\n`, names: 'log', cli: true },
  { what: 'a log line of an unknown kind', log: `${goodLine}\n{"kind":"refund","amount":"10.00"}\n`, names: 'log' },
  { what: 'a log line whose payment has no fields', log: `{"kind":"payment","payment":{}}\n`, names: 'log' },
  { what: 'a log line of null', log: `${goodLine}\nnull\n`, names: 'log' },
];

/** The bytes of the snapshot and of the log of `dataFile`, or null for a file that is not there. */
export async function filesNow(dataFile: string): Promise<{ snapshot: Buffer | null; log: Buffer | null }> {
  const read = async (path: string) => (existsSync(path) ? readFile(path) : null);
  return { snapshot: await read(dataFile), log: await read(`${dataFile}.wal`) };
}

/** Writes the snapshot and the log of `dataFile` that are given; an undefined one is left absent. */
export async function lay(dataFile: string, snapshot: string | undefined, log: string | undefined): Promise<void> {
  if (snapshot !== undefined) await writeFile(dataFile, snapshot);
  if (log !== undefined) await writeFile(`${dataFile}.wal`, log);
}

