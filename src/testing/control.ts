import { readFile } from 'node:fs/promises';
import { durationOf } from '../model/durations.js';
import { parseFixturesText, type FixturesDocument, type FixturesResult } from '../known-states/fixtures.js';
import type { SnapshotDocument } from '../known-states/known-states.js';
import type { GoLiveReport, GoLiveRun } from '../model/go-live.js';
import type { Delivery, DeliverySchedule, DeliveryState, NotificationEventType } from '../model/notifications.js';

/**
 * A client of the control API under `/__sandbox` (openapi/control-api.yaml;
 * README, "The control API") for tests: plain `fetch`, so it drives a
 * sandbox started by a global set-up in another process, or by a CI job, as
 * well as one in the same process. It checks nothing the sandbox does not:
 * a refusal comes back as a ControlApiError carrying the sandbox's own
 * `{message, error}` body.
 */

/** What the control API answers on a refusal (`ControlError` in openapi/control-api.yaml), and what a fixtures load adds to it. */
export interface ControlErrorBody {
  /** what went wrong, for people */
  message: string;
  /** the category: `INPUT` (400), `UNAUTHORIZED` (401), `FORBIDDEN` (403), `NOT_FOUND` (404), `CONFLICT` (409), `UNSUPPORTED_MEDIA_TYPE` (415), or another the sandbox names */
  error: string;
  /** a fixtures load only: the step that failed, by index (from 0), id and the JSON pointer of the field */
  step?: { index: number; id?: string; field?: string };
  [field: string]: unknown;
}

/**
 * A control API request the sandbox refused (a status of 400 or more), or
 * one whose answer is no JSON. `body` is the answer as the sandbox wrote it;
 * the message names the request, the status, the category and the sandbox's
 * message.
 */
export class ControlApiError extends Error {
  override readonly name = 'ControlApiError';

  constructor(
    /** the request, e.g. `POST /__sandbox/fixtures` */
    readonly request: string,
    /** the HTTP status */
    readonly status: number,
    /** the answer's body: `{message, error}` from the sandbox, or `{message, error: 'NOT_JSON'}` made here for an answer that is no JSON */
    readonly body: ControlErrorBody,
  ) {
    super(`${request} answered ${status} ${body.error}: ${body.message}`);
  }

  /** The category of the refusal, as `body.error`. */
  get error(): string {
    return this.body.error;
  }
}

/** Which deliveries of notifications a wait or a list is about. Every field is optional. */
export interface DeliveryFilter {
  paymentReference?: string;
  eventType?: NotificationEventType;
  /** for `waitForNotification`, `delivered` when absent */
  state?: DeliveryState;
}

/** How to reach a sandbox's control API. */
export interface SandboxControlOptions {
  /** the sandbox's origin, e.g. http://127.0.0.1:4010 (a trailing `/` is ignored) */
  url: string;
  /** the sandbox's `--control-token`, sent as a bearer token; absent: none */
  controlToken?: string;
  /** milliseconds between two looks at the deliveries while waiting for one, or at a go-live run; default 100 */
  pollEveryMs?: number;
}

/** What `POST /__sandbox/go-live/{publicKey}/runs` answers (GoLiveRunStarted in openapi/control-api.yaml). */
interface GoLiveRunStarted {
  id: string;
  status: 'running';
}

/** The most rows a page of the control API's lists holds (README, "The control API"). */
const PAGE = 1000;

/** A typed client of one sandbox's control API, over HTTP. */
export class SandboxControl {
  /** the control API's base, `<url>/__sandbox` */
  readonly base: string;
  private readonly headers: Record<string, string>;
  private readonly pollEveryMs: number;

  constructor(options: SandboxControlOptions) {
    this.base = `${options.url.replace(/\/+$/, '')}/__sandbox`;
    this.headers = options.controlToken ? { authorization: `Bearer ${options.controlToken}` } : {};
    this.pollEveryMs = options.pollEveryMs ?? 100;
  }

  /**
   * The whole state, or one merchant's, as one JSON document (`GET /__sandbox/snapshot`).
   * @throws ControlApiError when the sandbox refuses (400 for an unknown parameter, 401 without the control token)
   */
  snapshot(publicKey?: string): Promise<SnapshotDocument> {
    return this.call('GET', '/snapshot', { publicKey });
  }

  /**
   * Replaces the whole state, or one merchant's, with a snapshot taken by
   * `snapshot()` (`PUT /__sandbox/snapshot`): checked whole first, so a bad
   * one changes nothing.
   * @returns the sandbox's answer
   * @throws ControlApiError with `error` INPUT naming the field, for a snapshot of another version or shape, or a record of another merchant than `publicKey`
   */
  loadSnapshot(snapshot: SnapshotDocument, publicKey?: string): Promise<Record<string, unknown>> {
    return this.call('PUT', '/snapshot', { publicKey }, snapshot);
  }

  /**
   * Puts the state back to what the sandbox started with, its snapshot and
   * fixtures (`POST /__sandbox/reset`); with `toEmpty`, forgets everything
   * instead. For one merchant with `publicKey`, else for every merchant.
   * @returns `{reset: 'all' | <publicKey>, to?: 'baseline' | 'empty'}`
   * @throws ControlApiError when the sandbox refuses
   */
  reset(options: { publicKey?: string; toEmpty?: boolean } = {}): Promise<{ reset: string; to?: string }> {
    return this.call('POST', '/reset', { publicKey: options.publicKey, to: options.toEmpty ? 'empty' : undefined });
  }

  /**
   * Runs a fixtures document's steps (`POST /__sandbox/fixtures`), all or
   * nothing. `fixtures` is the document, or the path of a JSON or YAML file
   * that holds one.
   * @returns the steps' answers, or `{loaded: false, alreadyLoaded: true}` when the sandbox held the document's result already
   * @throws ControlApiError with `error` INPUT and `body.step` naming the step that failed (nothing changed); Error when the file cannot be read or parsed
   */
  async loadFixtures(fixtures: FixturesDocument | string): Promise<FixturesResult> {
    const document = typeof fixtures === 'string' ? await readDocument(fixtures) : fixtures;
    return this.call('POST', '/fixtures', {}, document);
  }

  /**
   * Moves a merchant's clock forward and carries out what falls due
   * meanwhile: settlements, expiries, subscriptions' charges, notification
   * attempts (`POST /__sandbox/clock/{publicKey}/advance`; README, "Time").
   * @param by an ISO 8601 duration (`PT2H`, `P2D`; no years or months), a number of milliseconds, or `{to}`, an ISO 8601 time at or after the merchant's clock
   * @returns the clock as it now stands (`now`, `offsetMs`) and what was carried out (`fired`)
   * @throws ControlApiError with `error` INPUT for a duration it cannot read or a time before the clock; RangeError for a negative or non-finite number
   */
  advanceClock(publicKey: string, by: string | number | { to: string }): Promise<{ publicKey: string; now: string; offsetMs: number; fired: unknown[]; [field: string]: unknown }> {
    if (typeof by === 'number' && !(Number.isFinite(by) && by >= 0)) throw new RangeError(`a clock moves forward by a finite number of milliseconds, not ${by}`);
    const body = typeof by === 'object' ? { to: by.to } : { by: typeof by === 'number' ? durationOf(by) : by };
    return this.call('POST', `/clock/${encodeURIComponent(publicKey)}/advance`, {}, body);
  }

  /**
   * Sets a merchant's notification URL (`PUT /__sandbox/webhooks/{publicKey}`;
   * README, "Notifications"): without one, and without `--webhook-url`, the
   * merchant gets no notification.
   * @throws ControlApiError with `error` INPUT for a URL that is not absolute http or https
   */
  setWebhook(publicKey: string, url: string, options: { events?: NotificationEventType[]; schedule?: DeliverySchedule } = {}): Promise<Record<string, unknown>> {
    return this.call('PUT', `/webhooks/${encodeURIComponent(publicKey)}`, {}, { url, ...options });
  }

  /**
   * Every delivery of notifications to the merchant that matches `filter`,
   * in the order they were made (`GET /__sandbox/webhooks/deliveries`, every
   * page).
   * @throws ControlApiError when the sandbox refuses
   */
  async deliveries(publicKey: string, filter: DeliveryFilter = {}): Promise<Delivery[]> {
    const all: Delivery[] = [];
    let cursor: string | undefined;
    do {
      const page: { deliveries: Delivery[]; next?: string } = await this.call('GET', '/webhooks/deliveries', { publicKey, ...filter, limit: String(PAGE), cursor });
      all.push(...page.deliveries);
      cursor = page.next;
    } while (cursor !== undefined);
    // The list is newest first, as the journal.
    return all.reverse();
  }

  /**
   * The first delivery to the merchant that matches, now or once one does:
   * polls the deliveries list until then (README, "Waiting for a
   * notification in a test"). `match` is a filter (its `state` is
   * `delivered` when absent) or a function that decides on each delivery,
   * whatever its state.
   * @param timeoutMs how long to wait; default 10 000
   * @throws Error when none matches in time, naming the merchant's deliveries there are; ControlApiError when the sandbox refuses
   */
  async waitForNotification(publicKey: string, match: DeliveryFilter | ((delivery: Delivery) => boolean) = {}, timeoutMs = 10_000): Promise<Delivery> {
    const filter = typeof match === 'function' ? {} : { ...match, state: match.state ?? 'delivered' };
    const accepts = typeof match === 'function' ? match : () => true;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = (await this.deliveries(publicKey, filter)).find(accepts);
      if (found) return found;
      if (Date.now() >= deadline) break;
      await new Promise((done) => setTimeout(done, Math.min(this.pollEveryMs, Math.max(0, deadline - Date.now()))));
    }
    const seen = (await this.deliveries(publicKey)).map((delivery) => `${delivery.id} ${delivery.event.eventType} ${delivery.paymentReference} ${delivery.state}`);
    const wanted = typeof match === 'function' ? 'the predicate' : JSON.stringify(filter);
    throw new Error(`no delivery to ${publicKey} matching ${wanted} within ${timeoutMs} ms; its deliveries: ${seen.join(', ') || 'none'}`);
  }

  /**
   * The merchant's go-live report (`GET /__sandbox/go-live/{publicKey}`;
   * docs/decisions.md#d87-go-live-report): each check of its integration,
   * judged from its own traffic since its last reset, and the verdict
   * (`ready`, `not-ready`, `incomplete`). With `run`, first starts a run
   * that tests the merchant's notification receiver (`POST
   * /__sandbox/go-live/{publicKey}/runs`: the merchant needs a notification
   * URL) and polls it until it is done, which takes up to about a minute.
   * @param options.timeoutMs how long to wait for the run to be done; default 90 000
   * @throws ControlApiError with `error` NOT_FOUND for a merchant the sandbox does not know, INPUT for a key that is not a test
   *   public key, CONFLICT when a run cannot start (no notification URL, or a run of the merchant is running); Error when the run is not done in time
   */
  async goLive(publicKey: string, options: { run?: boolean; timeoutMs?: number } = {}): Promise<GoLiveReport> {
    const base = `/go-live/${encodeURIComponent(publicKey)}`;
    if (options.run) {
      const { id } = await this.call<GoLiveRunStarted>('POST', `${base}/runs`, {});
      const timeoutMs = options.timeoutMs ?? 90_000;
      const deadline = Date.now() + timeoutMs;
      while ((await this.call<GoLiveRun>('GET', `${base}/runs/${encodeURIComponent(id)}`, {})).status !== 'done') {
        if (Date.now() >= deadline) throw new Error(`the go-live run ${id} of ${publicKey} was not done within ${timeoutMs} ms`);
        await new Promise((done) => setTimeout(done, this.pollEveryMs));
      }
    }
    return this.call('GET', base, {});
  }

  /**
   * One control API request: the query's undefined values left out, the
   * body sent as JSON, the answer parsed as JSON.
   * @throws ControlApiError for a status of 400 or more, or an answer that is no JSON
   */
  private async call<T>(method: string, path: string, query: Record<string, string | undefined>, body?: unknown): Promise<T> {
    const search = new URLSearchParams(Object.entries(query).filter((entry): entry is [string, string] => entry[1] !== undefined));
    const target = `${this.base}${path}${search.size > 0 ? `?${search}` : ''}`;
    const request = `${method} ${new URL(target).pathname}`;
    const answer = await fetch(target, {
      method,
      headers: body === undefined ? this.headers : { ...this.headers, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await answer.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new ControlApiError(request, answer.status, { message: `the answer is no JSON: ${text.slice(0, 200)}`, error: 'NOT_JSON' });
    }
    if (answer.status >= 400) {
      const refusal = parsed as Partial<ControlErrorBody> | null;
      throw new ControlApiError(request, answer.status, {
        ...(typeof refusal === 'object' && refusal !== null ? refusal : {}),
        message: String(refusal?.message ?? text.slice(0, 200)),
        error: String(refusal?.error ?? `HTTP_${answer.status}`),
      });
    }
    return parsed as T;
  }
}

/**
 * A fixtures document read from a file, JSON or YAML, as `--fixtures` reads one (src/known-states/fixtures.ts).
 * @throws Error naming the file when it cannot be read or parsed
 */
async function readDocument(path: string): Promise<FixturesDocument> {
  try {
    return (await parseFixturesText(await readFile(path, 'utf8'))) as FixturesDocument;
  } catch (error) {
    throw new Error(`cannot read the fixtures file ${path}: ${(error as Error).message}`);
  }
}
