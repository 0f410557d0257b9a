/**
 * `payments-sandbox go-live --public-key PK [--run]`: asks a running sandbox
 * whether a merchant's integration is ready for production, through the
 * control API (openapi/control-api.yaml, tag Go-live;
 * docs/decisions.md#d87-go-live-report): GET /__sandbox/go-live/{publicKey},
 * after, with `--run`, a run that tests the merchant's notification receiver
 * (POST .../runs, then GET .../runs/{id} until it is done). Loads nothing of
 * the server.
 */
import type { GoLiveReport, GoLiveRun, GoLiveRunStep, GoLiveVerdict } from '../model/go-live.js';
import { controlRequest, type ControlTarget } from './control-request.js';

/** What the go-live sub-command was told. */
export interface GoLiveRequest extends ControlTarget {
  publicKey: string;
  /** start a run first, and wait for it to be done */
  run?: boolean;
}

/** How a run is followed; the defaults suit a real run, which ends by itself within about a minute. */
export interface FollowOptions {
  /** called once for each step whose result is in (pass or fail), in the order they come */
  onStep?: (step: GoLiveRunStep, run: GoLiveRun) => void;
  /** milliseconds between two looks at the run; default 500 */
  pollEveryMs?: number;
  /** milliseconds to wait for the run to be done before giving up; default 120 000 */
  timeoutMs?: number;
}

/**
 * The exit code for a verdict, what a CI job gates on (docs/testing.md):
 * 0 `ready`, 1 `not-ready` or `incomplete`. CANNOT_TELL is for no verdict.
 */
export function exitCodeOf(verdict: GoLiveVerdict): 0 | 1 {
  return verdict === 'ready' ? 0 : 1;
}

/** The exit code when no verdict could be had: the sandbox unreachable or refusing (400, 401, 404, 409), or a run that never ended. */
export const CANNOT_TELL = 2;

/**
 * The merchant's go-live report, after a run when `request.run` is set.
 * @returns the report as the control API answered it
 * @throws Error with one line saying why there is none: `cannot reach the sandbox at …`, `GET /__sandbox/go-live/PK answered 404: …`
 *   (400 for a key that is not a test public key, 401 without the control token), `POST …/runs answered 409: …` (no notification URL,
 *   or a run of the merchant is running), or a run not done within `timeoutMs`
 */
export async function goLiveReport(request: GoLiveRequest, follow: FollowOptions = {}): Promise<GoLiveReport> {
  const base = `/go-live/${encodeURIComponent(request.publicKey)}`;
  if (request.run) {
    const started = (await (await controlRequest(request, 'POST', `${base}/runs`, undefined, 10_000)).json()) as { id: string };
    await followRun(request, `${base}/runs/${encodeURIComponent(started.id)}`, follow);
  }
  return (await (await controlRequest(request, 'GET', base, undefined, 10_000)).json()) as GoLiveReport;
}

// Looks at the run until it is done, telling each step once, in the run's order, as soon as it and those before it have their result
// (the first step waits for the receiver's status query, which the later ones do not).
async function followRun(target: ControlTarget, path: string, follow: FollowOptions): Promise<GoLiveRun> {
  const { onStep, pollEveryMs = 500, timeoutMs = 120_000 } = follow;
  let told = 0;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = (await (await controlRequest(target, 'GET', path, undefined, 10_000)).json()) as GoLiveRun;
    while (told < run.steps.length && run.steps[told]!.result !== 'waiting') {
      onStep?.(run.steps[told]!, run);
      told += 1;
    }
    if (run.status === 'done') return run;
    if (Date.now() >= deadline) throw new Error(`the go-live run ${run.id} was not done after ${Math.round(timeoutMs / 1000)} s (GET /__sandbox${path})`);
    await new Promise((resolve) => setTimeout(resolve, pollEveryMs));
  }
}

/** How the sub-command writes the report: for a person, as the control API answers it, or as a CI's test report. */
export const GO_LIVE_FORMATS = ['text', 'json', 'junit'] as const;

/** One of GO_LIVE_FORMATS. */
export type GoLiveFormat = (typeof GO_LIVE_FORMATS)[number];

/** The report written in `format`: the text of go-live-text.ts, the API's JSON pretty-printed, or the JUnit XML of junit-report.ts. */
export async function formatReport(report: GoLiveReport, format: GoLiveFormat): Promise<string> {
  if (format === 'json') return `${JSON.stringify(report, null, 2)}\n`;
  // Loaded only when asked: the JUnit writer is the largest module the command would load.
  if (format === 'junit') return (await import('./junit-report.js')).reportJunit(report);
  return (await import('./go-live-text.js')).reportText(report);
}
