import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KnownStateError, type Sandbox, type SandboxOptions } from '../../../src/index.js';
import { ControlClient } from '../../support/control.js';
import { ApiClient, accountPayment, freshReference, sandboxForTest } from '../../support/sandbox.js';

/**
 * Fixtures (docs/known-states.md; docs/decisions.md#d76-fixtures): documents
 * of real requests, loaded at start and over the control API, `${id.path}`
 * naming earlier answers, all or nothing, never loaded twice; and the
 * baseline a reset returns to (docs/decisions.md#d77-reset-to-baseline).
 */

const PUB = 'SBTESTPUBK_fixtures0001';
const SEC = 'SBTESTSECK_fixtures0001';

let dir: string;
const open: Sandbox[] = [];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payments-sandbox-fixtures-'));
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((sandbox) => sandbox.close()));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function started(options: SandboxOptions = {}): Promise<{ sandbox: Sandbox; control: ControlClient; api: ApiClient }> {
  const sandbox = await sandboxForTest(options);
  open.push(sandbox);
  return { sandbox, control: await ControlClient.for(sandbox), api: await ApiClient.for(sandbox) };
}

const initiate = (paymentReference: string, fields: Record<string, unknown> = {}) => ({
  api: { method: 'POST', path: '/payments/initiates', body: accountPayment({ publicKey: PUB, paymentReference, ...fields }) },
});

/** Two accounts paid with their OTPs, the second naming the first's linkingReference in its productDescription. */
const twoPayments = (prefix: string) => ({
  version: 1,
  merchant: { publicKey: PUB, secretKey: SEC },
  steps: [
    { id: 'first', ...initiate(`${prefix}-1`), expect: { code: '20' } },
    { api: { method: 'POST', path: '/payments/validate', body: { linkingReference: '${first.data.payments.linkingReference}', otp: '123456' } }, expect: { code: '00' } },
    { id: 'second', ...initiate(`${prefix}-2`, { productDescription: 'after ${first.data.payments.linkingReference}' }) },
    { id: 'query', api: { method: 'GET', path: `/payments/query/${prefix}-1` }, expect: { status: 200, code: '00' } },
  ],
});

const withoutTime = (snapshot: Record<string, unknown>) => ({ ...snapshot, takenAt: undefined });

describe('a fixtures document', () => {
  it('loaded over the control API runs each step as a client request, naming earlier answers', async () => {
    const { sandbox, control } = await started();
    const loaded = await control.send('POST', '/fixtures', { body: twoPayments('FX-A') });
    expect(loaded.status).toBe(200);
    expect(loaded.body.loaded).toBe(true);
    expect(loaded.body.bound).toEqual(['first', 'second', 'query']);
    expect(loaded.body.steps.map((step: { code: string }) => step.code)).toEqual(['20', '00', '20', '00']);
    const first = sandbox.store.payment(PUB, 'FX-A-1')!;
    expect(first.status).toBe('SUCCESSFUL');
    expect(sandbox.store.payment(PUB, 'FX-A-2')?.status).toBe('PENDING');
    // The request was made with the linkingReference the first answer handed out.
    const entries = (await control.send('GET', '/requests', { query: { paymentReference: 'FX-A-2' } })).body.requests as Array<{ request: { body: { productDescription: string } } }>;
    expect(JSON.stringify(entries)).toContain(`after ${first.linkingReference}`);
  });

  it('keeps the type of a value that is one reference: a number stays a number', async () => {
    const { sandbox, control } = await started();
    const document = {
      version: 1,
      merchant: { publicKey: PUB, secretKey: SEC },
      steps: [
        { id: 'transfer', api: { method: 'POST', path: '/payments/initiates', body: { publicKey: PUB, paymentType: 'CARD', paymentReference: 'FX-TRF-1', amount: '3000.00', currency: 'NGN', country: 'NG', pocketReference: 'P-1', amountControl: 'FIXEDAMOUNT', type: '3DSECURE', walletDaysActive: '3' } } },
        // The transfer answers its amount as a number; the sandbox takes a number amount with a warning.
        { ...initiate('FX-NUM-1', { amount: '${transfer.data.payments.amount}' }) },
      ],
    };
    expect((await control.send('POST', '/fixtures', { body: document })).status).toBe(200);
    const journal = (await control.send('GET', '/requests', { query: { paymentReference: 'FX-NUM-1' } })).body.requests as Array<{ request: { body: { amount: unknown } } }>;
    expect(typeof journal[0]!.request.body.amount).toBe('number');
    expect(sandbox.store.payment(PUB, 'FX-NUM-1')?.amount).toBe('3000.00');
  });

  it('whose step fails leaves the state exactly as it was: 400 naming the step, its id and the field', async () => {
    const { control, api } = await started();
    // State beforehand: payments, an override, a fault, a moved clock.
    expect((await control.send('POST', '/fixtures', { body: twoPayments('FX-PRE') })).status).toBe(200);
    await control.override({ scenario: 'account-pending', publicKey: PUB, times: 2 });
    await control.send('POST', `/webhooks/${PUB}/faults`, { body: { kind: 'never', times: 3 } });
    await control.send('POST', `/clock/${PUB}/advance`, { body: { by: 'PT3H' } });
    const before = (await control.send('GET', '/snapshot')).body;
    const failing = {
      version: 1,
      merchant: { publicKey: PUB, secretKey: SEC },
      steps: [
        { id: 'one', ...initiate('FX-B-1') },
        { control: { method: 'POST', path: `/clock/${PUB}/advance`, body: { by: 'P1D' } } },
        { id: 'bad', ...initiate('FX-B-2'), expect: { code: '00' } },
        { ...initiate('FX-B-3') },
      ],
    };
    const refused = await control.send('POST', '/fixtures', { body: failing });
    expect(refused.status).toBe(400);
    expect(refused.body.step).toEqual({ index: 2, id: 'bad', field: '/steps/2/expect/code' });
    expect(refused.body.message).toMatch(/^step 2 \(bad\): expected code 00, the answer has status 200 and code 20/);
    expect(withoutTime((await control.send('GET', '/snapshot')).body)).toEqual(withoutTime(before));
    // The payment the first step made is gone: the same document goes through once the failing step is fixed.
    const fixed = { ...failing, steps: failing.steps.map((step, index) => (index === 2 ? { ...step, expect: { code: '20' } } : step)) };
    expect((await control.send('POST', '/fixtures', { body: fixed })).body.loaded).toBe(true);
    expect((await api.send('POST', '/encrypt/keys', { key: `${SEC}.${PUB}` })).status).toBe(200);
  });

  it('naming an id no earlier step bound, or breaking the schema, is refused by step and field, and changes nothing', async () => {
    const { control } = await started();
    const before = (await control.send('GET', '/snapshot')).body;
    const unknownId = { version: 1, merchant: { publicKey: PUB, secretKey: SEC }, steps: [{ ...initiate('FX-C-1') }, { api: { method: 'POST', path: '/payments/validate', body: { linkingReference: '${nobody.data.payments.linkingReference}', otp: '123456' } } }] };
    const unknown = await control.send('POST', '/fixtures', { body: unknownId });
    expect(unknown.status).toBe(400);
    expect(unknown.body.step).toEqual({ index: 1, field: '/steps/1/api/body/linkingReference' });
    expect(unknown.body.message).toMatch(/names no earlier step/);
    const badSchema = await control.send('POST', '/fixtures', { body: { version: 1, steps: [{ api: { method: 'FETCH', path: 'payments' } }] } });
    expect(badSchema.status).toBe(400);
    expect(badSchema.body.message).toMatch(/steps\.0\.api\.(method|path)/);
    expect(withoutTime((await control.send('GET', '/snapshot')).body)).toEqual(withoutTime(before));
  });

  it('cannot load fixtures or a snapshot, or reset, from a step: they run one at a time with the load', async () => {
    const { control } = await started();
    for (const path of ['/reset', '/reset?publicKey=' + PUB, '/fixtures', '/snapshot']) {
      const nested = { version: 1, merchant: { publicKey: PUB, secretKey: SEC }, steps: [{ ...initiate('FX-N-1') }, { control: { method: 'POST', path } }] };
      const refused = await control.send('POST', '/fixtures', { body: nested });
      expect(refused.status, path).toBe(400);
      expect(refused.body.step, path).toEqual({ index: 1, field: '/steps/1/control/path' });
    }
  });

  it('that makes a paymentReference twice is refused with the step that collides', async () => {
    const { sandbox, control } = await started();
    const twice = { version: 1, merchant: { publicKey: PUB, secretKey: SEC }, steps: [{ id: 'a', ...initiate('FX-D-1') }, { id: 'b', ...initiate('FX-D-1') }] };
    const refused = await control.send('POST', '/fixtures', { body: twice });
    expect(refused.status).toBe(400);
    expect(refused.body.step).toEqual({ index: 1, id: 'b', field: '/steps/1' });
    expect(refused.body.message).toMatch(/step 1 \(b\) uses paymentReference FX-D-1 .* which step 0 made already/);
    expect(sandbox.store.payment(PUB, 'FX-D-1')).toBeUndefined();
  });

  it('loaded into a sandbox that holds its result already is reported, not loaded twice', async () => {
    const { sandbox, control } = await started();
    expect((await control.send('POST', '/fixtures', { body: twoPayments('FX-E') })).body.loaded).toBe(true);
    const before = (await control.send('GET', '/snapshot')).body;
    const again = await control.send('POST', '/fixtures', { body: twoPayments('FX-E') });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ loaded: false, alreadyLoaded: true });
    expect(again.body.message).toMatch(/FX-E-1 .* held before this load/);
    expect(sandbox.store.payments(PUB)).toHaveLength(2);
    expect(withoutTime((await control.send('GET', '/snapshot')).body)).toEqual(withoutTime(before));
  });
});

describe('fixtures and a snapshot at start', () => {
  it('a file that cannot be loaded stops the start with one line naming the file, the step and the field', async () => {
    const file = join(dir, 'broken.yaml');
    await writeFile(file, `version: 1\nmerchant: { publicKey: ${PUB}, secretKey: ${SEC} }\nsteps:\n  - { id: x, api: { method: POST, path: /payments/initiates, body: { paymentType: ACCOUNT } }, expect: { code: "20" } }\n`);
    const failure = await sandboxForTest({ fixtures: [file] }).then(
      (sandbox) => sandbox.close().then(() => undefined),
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(KnownStateError);
    expect((failure as Error).message).toMatch(new RegExp(`^--fixtures ${file}: step 0 \\(x\\): expected code 20`));
    expect((failure as Error).message).not.toContain('\n');
    const schema = join(dir, 'schema.yaml');
    await writeFile(schema, 'version: 1\nsteps:\n  - { api: { method: FETCH, path: /payments } }\n');
    const refused = await sandboxForTest({ fixtures: [schema] }).catch((error: unknown) => error);
    expect((refused as Error).message).toMatch(new RegExp(`^--fixtures ${schema}: steps\\.0\\.api\\.method must be equal to one of the allowed values`));
    const missing = await sandboxForTest({ snapshot: join(dir, 'nowhere.json') }).catch((error: unknown) => error);
    expect((missing as Error).message).toMatch(/^--snapshot .*nowhere\.json cannot be read \(ENOENT\)/);
  });

  it('a restart on the same store file with the same fixtures reports them loaded, and adds nothing', async () => {
    const dataFile = join(dir, `restart-${freshReference()}.json`);
    const fixtures = join(dir, 'two.json');
    await writeFile(fixtures, JSON.stringify(twoPayments('FX-R')));
    const lines: string[] = [];
    const logDestination = { write: (text: string) => lines.push(text) } as unknown as NodeJS.WritableStream;
    const first = await sandboxForTest({ dataFile, fixtures: [fixtures] });
    await first.close();
    const { sandbox } = await started({ dataFile, fixtures: [fixtures], logLevel: 'info', logDestination });
    expect(sandbox.store.payments(PUB)).toHaveLength(2);
    expect(lines.join('')).toMatch(/fixtures .*two\.json: already loaded: step 0 \(first\)/);
  });

  it('reset returns to the baseline (the snapshot, then the fixtures); to=empty forgets; one merchant alone', async () => {
    const seed = await started();
    expect((await seed.control.send('POST', '/fixtures', { body: twoPayments('FX-BASE') })).status).toBe(200);
    const snapshotFile = join(dir, 'base.json');
    await writeFile(snapshotFile, JSON.stringify((await seed.control.send('GET', '/snapshot')).body));
    const fixtures = join(dir, 'more.json');
    await writeFile(fixtures, JSON.stringify(twoPayments('FX-MORE')));
    const { sandbox, control, api } = await started({ snapshot: snapshotFile, fixtures: [fixtures] });
    const baseline = (await control.send('GET', '/snapshot')).body;
    expect(baseline.payments.map((payment: { paymentReference: string }) => payment.paymentReference)).toEqual(['FX-BASE-1', 'FX-BASE-2', 'FX-MORE-1', 'FX-MORE-2']);
    // Changes after the start: a new payment of the merchant, and a stranger.
    const stranger = await api.merchant();
    await api.as(stranger, 'POST', '/payments/initiates', accountPayment({ paymentReference: freshReference() }));
    expect((await control.send('POST', '/fixtures', { body: twoPayments('FX-LATER') })).status).toBe(200);

    expect((await control.send('POST', '/reset', { query: { publicKey: PUB } })).body).toEqual({ reset: PUB, to: 'baseline' });
    expect(sandbox.store.payments(PUB).map((payment) => payment.paymentReference)).toEqual(['FX-BASE-1', 'FX-BASE-2', 'FX-MORE-1', 'FX-MORE-2']);
    expect(sandbox.store.payments(stranger.publicKey)).toHaveLength(1);

    expect((await control.send('POST', '/reset')).body).toEqual({ reset: 'all', to: 'baseline' });
    const after = (await control.send('GET', '/snapshot')).body;
    expect(after.payments).toEqual(baseline.payments);
    // The stranger stays known, released: its token keeps working.
    expect(sandbox.store.merchant(stranger.publicKey)?.released).toBe(true);
    expect((await api.as(stranger, 'POST', '/payments/initiates', accountPayment({ paymentReference: freshReference() }))).status).toBe(200);

    expect((await control.send('POST', '/reset', { query: { to: 'empty' } })).body).toEqual({ reset: 'all', to: 'empty' });
    expect(sandbox.store.payments(PUB)).toEqual([]);
  });
});

describe('a fixtures mistake', () => {
  const typoInStep = { version: 1, merchant: { publicKey: PUB, secretKey: SEC }, steps: [{ ...initiate('FX-TYPO-0') }, { id: 'card1', ...initiate('FX-TYPO-1'), expcet: { code: '20' } }] };

  it('an unknown field of a step is named by the step\'s index and id, with the allowed name closest to it', async () => {
    const { control } = await started();
    const refused = await control.send('POST', '/fixtures', { body: typoInStep });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe("steps.1 (id card1) has an unknown field 'expcet': did you mean 'expect'?");
  });

  it('in a --fixtures file stops the start with the same words, naming the file', async () => {
    const file = join(dir, 'typo.json');
    await writeFile(file, JSON.stringify(typoInStep));
    const failed = await sandboxForTest({ fixtures: [file] }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(KnownStateError);
    expect((failed as Error).message).toBe(`--fixtures ${file}: steps.1 (id card1) has an unknown field 'expcet': did you mean 'expect'?`);
  });

  it('a step that fails its expect because of a misspelt body field points at that field, and names the one meant', async () => {
    const { control } = await started();
    const body = accountPayment({ publicKey: PUB, paymentReference: 'FX-TYPO-2' });
    const misspelt = { ...Object.fromEntries(Object.entries(body).filter(([key]) => key !== 'bankCode')), bankCdoe: '058', colour: 'red' };
    const document = { version: 1, merchant: { publicKey: PUB, secretKey: SEC }, steps: [{ id: 'acct', api: { method: 'POST', path: '/payments/initiates', body: misspelt }, expect: { code: '20' } }] };
    const refused = await control.send('POST', '/fixtures', { body: document });
    expect(refused.status).toBe(400);
    expect(refused.body.step).toEqual({ index: 0, id: 'acct', field: '/steps/0/api/body/bankCdoe' });
    expect(refused.body.message).toMatch(/^step 0 \(acct\): expected code 20, the answer has status 400 \("bankCode is required"\)/);
    expect(refused.body.message).toMatch(/; its body has 'bankCdoe' \(did you mean 'bankCode'\?\), 'colour', which POST \/payments\/initiates does not take$/);
  });

  it('a step that fails its expect with a body the operation takes still points at the expect that differed', async () => {
    const { control } = await started();
    const document = { version: 1, merchant: { publicKey: PUB, secretKey: SEC }, steps: [{ ...initiate('FX-TYPO-3'), expect: { status: 201 } }] };
    const refused = await control.send('POST', '/fixtures', { body: document });
    expect(refused.body.step).toEqual({ index: 0, field: '/steps/0/expect/status' });
    expect(refused.body.message).toBe('step 0: expected status 201, the answer has status 200 and code 20 ("Transaction is pending")');
  });
});
