import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { Store, StoreOpenError } from '../../../src/store/store.js';
import { changeLine, merchantRecord, orderRecord, paymentRecord, PUBLIC_A, storeFiles } from '../../store/fixtures.js';

/**
 * Files the store cannot trust: each refuses start-up with a StoreOpenError
 * that names the file (and the line of the log) and says what is wrong, and
 * leaves both files byte for byte as they were, and no lock behind.
 */

const files = storeFiles();

const payment = paymentRecord(PUBLIC_A, 1);
const REF = payment.paymentReference;
const v1 = (parts: Record<string, unknown>) => JSON.stringify({ version: 1, merchants: {}, payments: {}, orders: {}, ...parts });
const v2 = (parts: Record<string, unknown>) => JSON.stringify({ version: 2, merchants: [], payments: [], orders: [], ...parts });
const { amount: _amount, ...withoutAmount } = payment;
const { items: _items, ...withoutItems } = orderRecord(PUBLIC_A, REF);

/** A good log, to show that a bad snapshot leaves it alone too. */
const GOOD_LOG = changeLine(paymentRecord(PUBLIC_A, 2)) + '\n';
/** A good snapshot, to show that a bad log leaves it alone too. */
const GOOD_SNAPSHOT = v2({ merchants: [merchantRecord(PUBLIC_A)], payments: [payment] });

/** Opens the store on the files as written, expecting `message` ({file} standing for the store file) and untouched files. */
async function expectRefused(message: string | RegExp): Promise<void> {
  const paths = [files.file, `${files.file}.wal`];
  const before = await Promise.all(paths.map((path) => readFile(path).catch(() => undefined)));

  const opening = Store.open({ file: files.file });
  await expect(opening).rejects.toBeInstanceOf(StoreOpenError);
  const error = (await opening.catch((refusal: unknown) => refusal)) as StoreOpenError;
  if (typeof message === 'string') expect(error.message).toBe(message.replaceAll('{file}', files.file));
  else expect(error.message).toMatch(message);
  expect(error.message).toContain(files.file);

  const after = await Promise.all(paths.map((path) => readFile(path).catch(() => undefined)));
  for (const [index, content] of before.entries()) {
    if (content === undefined) expect(after[index], paths[index]).toBeUndefined();
    else expect(content.equals(after[index]!), paths[index]).toBe(true);
  }
  expect(existsSync(`${files.file}.lock`)).toBe(false);
}

describe('a snapshot it cannot trust', () => {
  it.each([
    ['not JSON', 'not json {', /^cannot read the store file \S+: not JSON \(Unexpected token/],
    ['an empty file', '', /^cannot read the store file \S+: not JSON \(Unexpected end of JSON input\)$/],
    ['null', 'null', 'cannot read the store file {file}: null where the snapshot object is expected'],
    ['a JSON array', '[]', 'cannot read the store file {file}: an array where the snapshot object is expected'],
    ['a number', '7', 'cannot read the store file {file}: a number where the snapshot object is expected'],
    ['an unknown version', v1({ version: 4 }), 'cannot read the store file {file}: unknown version 4 (expected 1, 2 or 3)'],
    ['no version', JSON.stringify({ merchants: {}, payments: {}, orders: {} }), 'cannot read the store file {file}: unknown version undefined (expected 1, 2 or 3)'],
    ['an object without payments', JSON.stringify({ version: 1, merchants: {}, orders: {} }), "cannot read the store file {file}: / must have required property 'payments'"],
    ['an unknown top-level property', v1({ extra: true }), 'cannot read the store file {file}: / has an unknown property "extra"'],
    ['a null payments entry', v1({ payments: { [PUBLIC_A]: null } }), `cannot read the store file {file}: /payments/${PUBLIC_A} must be object`],
    ['a string in place of a merchant\'s payments', v1({ payments: { [PUBLIC_A]: 'none' } }), `cannot read the store file {file}: /payments/${PUBLIC_A} must be object`],
    ['a payment record with no fields', v1({ payments: { [PUBLIC_A]: { [REF]: {} } } }), `cannot read the store file {file}: /payments/${PUBLIC_A}/${REF} must have required property 'publicKey'`],
    ['a payment without its amount', v1({ payments: { [PUBLIC_A]: { [REF]: withoutAmount } } }), `cannot read the store file {file}: /payments/${PUBLIC_A}/${REF} must have required property 'amount'`],
    ['a payment amount of the wrong type', v1({ payments: { [PUBLIC_A]: { [REF]: { ...payment, amount: 150 } } } }), `cannot read the store file {file}: /payments/${PUBLIC_A}/${REF}/amount must be string`],
    ['a payment with an unknown status', v2({ payments: [{ ...payment, status: 'LOST' }] }), 'cannot read the store file {file}: /payments/0/status must be equal to one of the allowed values (PENDING, SUCCESSFUL, FAILED, CANCELLED, REFUNDED, EXPIRED, AUTHORIZED, PARTIALLY_CAPTURED, CAPTURED, TOKENIZED)'],
    ['a payment under another reference', v1({ payments: { [PUBLIC_A]: { OTHER: payment } } }), `cannot read the store file {file}: /payments/${PUBLIC_A}/OTHER holds the paymentReference "${REF}" of "${PUBLIC_A}"`],
    ['a payment stored twice', v2({ payments: [payment, payment] }), `cannot read the store file {file}: /payments/1 repeats the paymentReference "${REF}" of "${PUBLIC_A}"`],
    ['a merchant without its secret key', v2({ merchants: [{ publicKey: PUBLIC_A, createdAt: '2025-01-01T12:00:00.000Z' }] }), "cannot read the store file {file}: /merchants/0 must have required property 'secretKey'"],
    ['an order without items', v1({ orders: { [PUBLIC_A]: { [REF]: withoutItems } } }), `cannot read the store file {file}: /orders/${PUBLIC_A}/${REF} must have required property 'items'`],
    ['an order with an empty item list', v2({ orders: [{ ...withoutItems, items: [] }] }), 'cannot read the store file {file}: /orders/0/items must NOT have fewer than 1 items'],
    ['version 2 with records by key', v2({ payments: { [PUBLIC_A]: {} } }), 'cannot read the store file {file}: /payments must be array'],
  ])('refuses %s', async (_what, content, message) => {
    await writeFile(files.file, content);
    await writeFile(`${files.file}.wal`, GOOD_LOG);
    await expectRefused(message);
  });

  it('refuses a folder in place of the file', async () => {
    await mkdir(files.file);
    await expectRefused('cannot read the store file {file}: not a regular file');
  });
});

describe('a log it cannot trust', () => {
  it.each([
    ['not JSON at all', '{"kind":"payment","pay', /^cannot read the store log \S+\.wal: line 2 is not JSON \(/],
    ['null', 'null', 'cannot read the store log {file}.wal: line 2 is not a change: null where a change object is expected'],
    ['an array', '[1]', 'cannot read the store log {file}.wal: line 2 is not a change: an array where a change object is expected'],
    ['a change without its record', '{"kind":"payment"}', 'cannot read the store log {file}.wal: line 2 is not a change: /payment must be object'],
    ['an unknown kind', '{"kind":"refund","amount":"10.00"}', 'cannot read the store log {file}.wal: line 2 is not a change: unknown kind "refund"'],
    ['a payment record with no fields', '{"kind":"payment","payment":{}}', "cannot read the store log {file}.wal: line 2 is not a change: /payment must have required property 'publicKey'"],
    ['a payment amount of the wrong type', changeLine({ ...payment, amount: 150 as unknown as string }), 'cannot read the store log {file}.wal: line 2 is not a change: /payment/amount must be string'],
    ['a card that is not an object', changeLine({ ...payment, card: 'x' as never }), 'cannot read the store log {file}.wal: line 2 is not a change: /payment/card must be object'],
    ['an order without items', JSON.stringify({ kind: 'order', order: withoutItems }), "cannot read the store log {file}.wal: line 2 is not a change: /order must have required property 'items'"],
    ['a reset of a public key that is not a string', '{"kind":"reset","publicKey":7}', 'cannot read the store log {file}.wal: line 2 is not a change: /publicKey must be string'],
    ['a change with an unknown property', JSON.stringify({ kind: 'payment', payment, extra: 1 }), 'cannot read the store log {file}.wal: line 2 is not a change: unknown property "extra" in a payment change'],
  ])('refuses a complete line that is %s, naming the line', async (_what, line, message) => {
    await writeFile(files.file, GOOD_SNAPSHOT);
    await writeFile(`${files.file}.wal`, [changeLine(paymentRecord(PUBLIC_A, 2)), line, changeLine(paymentRecord(PUBLIC_A, 3))].join('\n') + '\n');
    await expectRefused(message);
  });

  it('refuses a folder in place of the log', async () => {
    await mkdir(`${files.file}.wal`);
    await expectRefused('cannot read the store log {file}.wal: not a regular file');
    expect(existsSync(files.file)).toBe(false);
  });

  it('opens once the bad line is gone, with every change of the log', async () => {
    await writeFile(files.file, GOOD_SNAPSHOT);
    await writeFile(`${files.file}.wal`, [changeLine(paymentRecord(PUBLIC_A, 2)), 'null'].join('\n') + '\n');
    await expectRefused('cannot read the store log {file}.wal: line 2 is not a change: null where a change object is expected');

    await writeFile(`${files.file}.wal`, changeLine(paymentRecord(PUBLIC_A, 2)) + '\n');
    const store = await files.open();
    expect(store.payments(PUBLIC_A).map((stored) => stored.paymentReference)).toEqual([REF, 'SBREF-STORE-0002']);
  });
});
