import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { accountPayment } from '../support/sandbox.js';
import { banner, EXIT_WITHIN, run, stopAll, within, type Run } from '../support/process.js';
import { SYNC_LEVELS, type SyncLevel } from '../../src/store/store.js';
import { PaymentsApi, type Answer } from './support/api.js';
import { knob, seededRandom, seedFrom } from './support/knobs.js';

/**
 * kill -9 in a loop: payments-sandbox runs as a real process on a data
 * file; a random number of initiates and OTP completions are sent at once,
 * and the process is killed (SIGKILL) the moment a random number of them
 * have been answered. After each restart every answered change must be
 * there: an answered initiate is a stored payment, an answered completion a
 * SUCCESSFUL one (README, "Storage": a crash loses nothing acknowledged).
 * It runs at both durability levels: `normal` answers before the log's
 * fdatasync, and must lose nothing to a killed process all the same.
 * KILL_RUNS sets the number of kills per level (default 5); KILL_SEED replays a run.
 */

const KILLS = knob('KILL_RUNS', 5);
const PER_KILL_MS = 30_000;

type State = 'PENDING' | 'SUCCESSFUL';

/** What the campaign knows of one payment: the states it may be in after a crash. */
interface Known {
  linkingReference?: string;
  /** states the stored payment may have: one once acknowledged, two while a completion was in flight */
  may: Set<State>;
  /** true once an initiate or completion of it was answered */
  acknowledged: boolean;
}

let dir: string | undefined;

afterAll(async () => {
  await stopAll();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Starts the executable on the data file at a durability level and waits for its banner. */
async function startOn(dataFile: string, sync: SyncLevel): Promise<{ started: Run; origin: string }> {
  const started = run(['--port', '0', '--data', dataFile, '--sync', sync]);
  const shown = await banner(started);
  return { started, origin: shown.origin };
}

/** Checks every acknowledged payment against the store; narrows what is known to what is stored. */
async function expectAcknowledged(api: PaymentsApi, known: Map<string, Known>, after: string): Promise<void> {
  const stored = new Map((await api.payments()).map((payment) => [payment.paymentReference as string, payment]));
  const lost: string[] = [];
  for (const [reference, what] of known) {
    const payment = stored.get(reference);
    if (!what.acknowledged) {
      // An initiate that was never answered may or may not have been kept; a kept one is now known.
      if (payment) known.set(reference, { linkingReference: payment.linkingReference, may: new Set([payment.status as State]), acknowledged: true });
      else known.delete(reference);
      continue;
    }
    if (!payment) lost.push(`${reference}: acknowledged ${[...what.may].join(' or ')}, not stored ${after}`);
    else if (!what.may.has(payment.status)) lost.push(`${reference}: acknowledged ${[...what.may].join(' or ')}, stored ${payment.status} ${after}`);
    else what.may = new Set([payment.status as State]);
  }
  expect(lost, `${lost.length} acknowledged changes lost`).toEqual([]);
}

describe.each(SYNC_LEVELS)(`payments-sandbox --sync %s killed with SIGKILL ${KILLS} times while answering`, (sync) => {
  it('keeps every acknowledged initiate and completion across each restart', { timeout: KILLS * PER_KILL_MS + 30_000 }, async () => {
    const seed = seedFrom('KILL_SEED', `kill -9 loop ${sync}`);
    const random = seededRandom(seed);
    dir ??= await mkdtemp(join(tmpdir(), 'payments-sandbox-kill-'));
    const dataFile = join(dir, `sandbox-${sync}.json`);
    const tag = (seed >>> 0).toString(16).padStart(8, '0');
    const keys = { publicKey: `SBTESTPUBK_kill${tag}`, secretKey: `SBTESTSECK_kill${tag}` };
    const known = new Map<string, Known>();
    const unexpected: string[] = [];
    let acknowledgedTotal = 0;

    for (let round = 1; round <= KILLS; round += 1) {
      const { started, origin } = await startOn(dataFile, sync);
      const api = await PaymentsApi.as(origin, keys);
      await expectAcknowledged(api, known, `after restart ${round - 1}`);

      // A random batch: new payments, and completions of pending ones already acknowledged.
      const pending = [...known].filter(([, what]) => what.acknowledged && what.may.size === 1 && what.may.has('PENDING'));
      const size = 20 + Math.floor(random() * 60);
      const killAfter = 1 + Math.floor(random() * (size - 1));
      let answered = 0;
      const kill = () => {
        if (started.child.exitCode === null && started.child.signalCode === null) started.child.kill('SIGKILL');
      };
      const acknowledged = () => {
        answered += 1;
        if (answered === killAfter) kill();
      };
      const requests: Array<Promise<void>> = [];
      for (let index = 0; index < size; index += 1) {
        if (pending.length > 0 && random() < 0.4) {
          const [reference, what] = pending.splice(Math.floor(random() * pending.length), 1)[0]!;
          what.may.add('SUCCESSFUL');
          requests.push(
            api.validate(what.linkingReference!).then((answer: Answer) => {
              if (answer.status === 0) return;
              if (answer.body?.data?.code !== '00') return void unexpected.push(`validate ${reference}: ${answer.status} ${JSON.stringify(answer.body)}`);
              what.may = new Set(['SUCCESSFUL']);
              acknowledged();
            }),
          );
        } else {
          const body = accountPayment({ paymentReference: `KILL-${round}-${index}-${tag}` });
          const reference = String(body.paymentReference);
          known.set(reference, { may: new Set(['PENDING']), acknowledged: false });
          requests.push(
            api.initiate(body).then((answer: Answer) => {
              if (answer.status === 0) return;
              if (answer.body?.data?.code !== '20') return void unexpected.push(`initiate ${reference}: ${answer.status} ${JSON.stringify(answer.body)}`);
              known.set(reference, { linkingReference: answer.body.data.payments.linkingReference, may: new Set(['PENDING']), acknowledged: true });
              acknowledged();
            }),
          );
        }
      }
      // Every request settles, answered or cut off by the kill, before the next start reads the store;
      // should fewer be answered than the kill waits for, the kill comes once all have settled.
      await within(Promise.all(requests).then(kill), PER_KILL_MS, `the requests of round ${round}`);
      const exit = await within(started.exited, EXIT_WITHIN, 'the killed sandbox to exit');
      expect(exit.signal).toBe('SIGKILL');
      acknowledgedTotal += answered;
    }

    const { origin } = await startOn(dataFile, sync);
    await expectAcknowledged(await PaymentsApi.as(origin, keys), known, `after restart ${KILLS}`);
    console.log(`kill -9 loop, --sync ${sync}: ${KILLS} kills, ${acknowledgedTotal} acknowledged changes, ${known.size} payments checked`);
    expect(unexpected).toEqual([]);
    expect(acknowledgedTotal).toBeGreaterThanOrEqual(KILLS);
  });
});
