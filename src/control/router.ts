import { access, constants } from 'node:fs/promises';
import { dirname } from 'node:path';
import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Response, type Router } from 'express';
import { paymentWrite } from '../domain/answer.js';
import { putWrites } from '../domain/commit.js';
import { settleExternally } from '../domain/payments.js';
import type { Payment } from '../model/records.js';
import { ApiError, inputError } from '../errors.js';
import { OverrideLimitError, type OverrideRequest } from '../scenarios/overrides.js';
import type { ScenarioSelector } from '../scenarios/selector.js';
import type { Store } from '../store/store.js';
import { checkRequest, requestToCheck } from '../validation/check-request.js';
import { controlToken, sameOriginJson } from './guards.js';
import { operationId, type HttpOperation } from '../validation/operations.js';
import { documentedQueryOnly, documentedRules } from './constraints.js';
import { DOCUMENT_PATHS, documentReader, type ServedDocuments } from './documents.js';
import type { Journal, StatusClass } from '../journal/journal.js';
import { fill, journalCursor, journalCursorId, pageBody, pageOfList, pageOfRows, pageOfSequence, pageRequest } from './paging.js';
import { notificationHandlers, type NotificationControls } from './notifications.js';
import { merchantOverview } from './overview.js';
import { paymentFilters, paymentWalk } from './payment-filters.js';
import { paymentView, scenarioView } from './views.js';
import { paymentStory } from './story.js';
import { paymentActionHandlers } from './actions.js';
import type { Links } from '../domain/answer.js';
import { once } from 'node:events';
import { Socket } from 'node:net';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { snapshotText } from '../known-states/state.js';
import { FixturesError, type FixturesDocument } from '../known-states/fixtures.js';
import { SnapshotError, type KnownStates, type SnapshotDocument } from '../known-states/known-states.js';
import { SubscriberLimitError, type EventSink, type SandboxEvents } from '../events/source.js';

/** The largest body PUT /snapshot reads (docs/known-states.md, "Bounds"): far beyond the states a test sets up, within what one JSON.parse can take. */
export const SNAPSHOT_BODY_LIMIT = '256mb';
/** The largest fixtures document POST /fixtures reads. */
export const FIXTURES_BODY_LIMIT = '16mb';

/** What the control API needs. */
export interface ControlDependencies {
  /** the operations of openapi/control-api.yaml */
  controlOperations: HttpOperation[];
  store: Store;
  /** the store file, to check it is writable; absent in memory */
  dataFile?: string;
  selector: ScenarioSelector;
  journal: Journal;
  now: () => string;
  /** `ok` once the sandbox serves */
  state: () => 'starting' | 'ok' | 'stopping';
  /** the bearer token every control request but the health check must carry (`--control-token`); absent: none */
  controlToken?: string;
  /** the OpenAPI documents GET /openapi/{document} serves */
  documents: ServedDocuments;
  /** the base URL links are built on, which the served documents name as their server */
  publicUrl: () => string;
  /** notification URLs, deliveries, faults and clocks (README, "Notifications", "Time") */
  notifications: NotificationControls;
  /** fixtures, snapshots and the baseline a reset returns to (README, "Known states") */
  knownStates: KnownStates;
  /** the live events GET /events streams (docs/decisions.md#d80-server-sent-events) */
  events: SandboxEvents;
  /** the sandbox's page links, given to the merchant's operations a payment's refund, cancel and capture run */
  links: Links;
}

type Handler = (req: Request, res: Response) => Promise<void> | void;

/**
 * The control API under `/__sandbox` (openapi/control-api.yaml; README, "The control API"):
 * scenarios, overrides, the journal, stored state, settling
 * payments, reset, health and readiness. A request goes: same-origin JSON
 * check -> control token -> JSON body -> documented query parameters only ->
 * validation against the document -> the rules its descriptions state ->
 * the handler. Errors come as `{message, error}`.
 */
export function controlRouter(deps: ControlDependencies): Router {
  const router = express.Router();
  // Container health checks poll /health without credentials; the API reference reads the documents without them.
  router.use(sameOriginJson(), controlToken(deps.controlToken, ['/health', ...DOCUMENT_PATHS]));
  // A snapshot or a fixtures document may be large; every other body is a few fields.
  const bodies = { '/snapshot': express.json({ limit: SNAPSHOT_BODY_LIMIT }), '/fixtures': express.json({ limit: FIXTURES_BODY_LIMIT }) } as Record<string, RequestHandler>;
  const small = express.json({ limit: '100kb' });
  router.use((req, res, next) => (bodies[req.path] ?? small)(req, res, next));
  const handlers = controlHandlers(deps);
  for (const operation of deps.controlOperations) {
    const id = operationId(operation);
    const handler = handlers[id];
    if (!handler) throw new Error(`the control API document has an operation without a handler: ${id}`);
    const path = operation.path.replace(/\{([^}]+)\}/g, ':$1');
    const method = operation.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete';
    // On a shared store every answer starts from what all replicas committed; the health check reports the last probe's finding instead.
    const fresh = id !== 'getHealth' && id !== 'getReadiness';
    const run: RequestHandler = async (req, res) => {
      if (fresh) await deps.store.refresh();
      await handler(req, res);
    };
    // The control API takes exactly what its document says: no leniency.
    const validate: RequestHandler = (req, _res, next) => {
      checkRequest(operation, requestToCheck(req), undefined, { lenient: false });
      next();
    };
    router[method](path, documentedQueryOnly(operation), validate, documentedRules(operation), run);
  }
  router.all('/{*rest}', () => {
    throw new ApiError(404, { message: 'Not Found', error: 'NOT_FOUND' }, undefined);
  });
  // A body that cannot be read (body-parser's 4xx errors) is an INPUT error in the control API's categories.
  const unreadable: ErrorRequestHandler = (error, _req, _res, next) => {
    const status = (error as { status?: unknown }).status;
    if (!(error instanceof ApiError) && status === 413) return next(new ApiError(413, { message: `${(error as Error).message}: the control API reads bodies up to 100kb, a snapshot up to ${SNAPSHOT_BODY_LIMIT}, fixtures up to ${FIXTURES_BODY_LIMIT}`, error: 'INPUT' }));
    next(!(error instanceof ApiError) && typeof status === 'number' && status >= 400 && status < 500 ? inputError((error as Error).message) : error);
  };
  router.use(unreadable);
  return router;
}

function controlHandlers(deps: ControlDependencies): Record<string, Handler> {
  const { store, selector, journal } = deps;
  const merchantOf = (req: Request) => (typeof req.query.publicKey === 'string' ? req.query.publicKey : undefined);
  // The merchants a list covers, in the order the store first saw them: the one named, or every one.
  const merchantsOf = (publicKey: string | undefined): string[] =>
    publicKey !== undefined ? [publicKey] : store.merchants().map((merchant) => merchant.publicKey);
  // `naming` says how the request names a merchant, for the answer when the reference is several merchants'.
  const onePayment = (req: Request, publicKey = merchantOf(req), reference = String(req.params.paymentReference), naming = 'add ?publicKey='): Payment => {
    // One keyed look-up per merchant: never a walk through every payment stored.
    const found = merchantsOf(publicKey).map((key) => store.payment(key, reference)).filter((payment): payment is Payment => payment !== undefined);
    if (found.length === 0) throw new ApiError(404, { message: `No payment with paymentReference ${reference}`, error: 'NOT_FOUND' });
    if (found.length > 1) throw inputError(`paymentReference ${reference} is used by more than one merchant: ${naming}`);
    return found[0]!;
  };
  const document = documentReader(deps.documents, deps.publicUrl);
  const { clocks, outbox } = deps.notifications;
  // Settles a PENDING payment as the outside world would (control-api.yaml, completePayment); 409 for any other.
  // The payment is read in the settling unit: on a shared store another replica may have settled it a moment ago.
  const settle = async (res: Response, find: () => Payment, outcome: 'success' | 'failure') => {
    const settled = await store.transaction(() => {
      const payment = find();
      const done = settleExternally(selector.engine, payment, outcome, clocks.now(payment.publicKey));
      if (done.refused) {
        throw new ApiError(409, { message: `Payment ${payment.paymentReference} is ${payment.status}, not PENDING`, error: 'CONFLICT' });
      }
      putWrites(store, [paymentWrite(done.payment, payment)], outbox);
      return done.payment;
    });
    res.json(paymentView(settled));
  };
  return {
    ...notificationHandlers(deps.notifications),
    getApiDocument: async (req, res) => {
      const { type, text } = await document(String(req.params.document));
      res.type(type).send(text);
    },
    getHealth: (_req, res) => {
      const state = deps.state();
      // A store that cannot write answers no payment: a health check must see it (README, "Storage").
      const { writable: canWrite, error, snapshotError } = store.health();
      if (state === 'ok' && !canWrite) return void res.status(503).json({ status: 'store-unavailable', error });
      // Writes still work when folds fail; the answer says so without failing the health check.
      res.status(state === 'ok' ? 200 : 503).json(state === 'ok' && snapshotError ? { status: state, snapshotError } : { status: state });
    },
    getReadiness: async (_req, res) => {
      const checks = { documents: true, catalogue: selector.engine.scenarios.length > 0, store: await writable(store, deps.dataFile) };
      const ready = deps.state() === 'ok' && Object.values(checks).every(Boolean);
      res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not-ready', checks });
    },
    listScenarios: (_req, res) => {
      res.json({ scenarios: selector.engine.scenarios.map(scenarioView) });
    },
    listOverrides: (req, res) => {
      const request = pageRequest(req.query as Record<string, unknown>);
      const publicKey = merchantOf(req);
      const withGlobal = req.query.withSandboxWide === 'true';
      const { overrides } = selector;
      const total = overrides.count(publicKey, withGlobal);
      const page = pageOfSequence('overrides', (after) => overrides.after(after, publicKey, withGlobal), (entry) => entry.sequence, total, request, (entry) => JSON.stringify(entry.override));
      sendPage(res, { total, limit: request.limit, next: page.next }, 'overrides', page.texts);
    },
    createOverride: async (req, res) => {
      const request = req.body as OverrideRequest;
      if (request.scenario !== undefined && !selector.engine.find(request.scenario)) {
        throw inputError(`Unknown scenario ${request.scenario}: GET /__sandbox/scenarios lists them`);
      }
      const override = await store.transaction(() => {
        try {
          return selector.overrides.add(request, deps.now());
        } catch (error) {
          // The book is full: the state, not the request, stands in the way (control-api.yaml, createOverride 409).
          if (error instanceof OverrideLimitError) throw new ApiError(409, { message: error.message, error: 'CONFLICT' });
          throw error;
        }
      });
      res.status(201).json(override);
    },
    deleteOverrides: async (req, res) => {
      await store.transaction(() => selector.overrides.clear(merchantOf(req)));
      res.status(204).end();
    },
    deleteOverride: async (req, res) => {
      const removed = await store.transaction(() => selector.overrides.remove(String(req.params.id)));
      if (!removed) throw new ApiError(404, { message: `No override ${String(req.params.id)}`, error: 'NOT_FOUND' });
      res.status(204).end();
    },
    listRequests: (req, res) => {
      const text = (name: string) => (typeof req.query[name] === 'string' ? (req.query[name] as string) : undefined);
      const { limit, cursor } = pageRequest(req.query as Record<string, unknown>);
      const before = cursor === undefined ? undefined : journalCursorId(cursor);
      const page = journal.page({ path: text('path'), publicKey: text('publicKey'), paymentReference: text('paymentReference'), status: statusFilter(text('status')), scenario: text('scenario') }, limit, before);
      // The page's byte bound may stop it before `limit`: the next page then starts after the last entry written.
      const written = fill(page.entries[Symbol.iterator](), limit, (entry) => JSON.stringify(entry));
      const next = written.more || page.more ? journalCursor(written.rows.at(-1)!.id) : undefined;
      const fields = { capacity: journal.capacity, maxBytes: journal.maxBytes, bytes: journal.bytes, count: written.rows.length, total: page.total, limit, next };
      sendPage(res, fields, 'requests', written.texts);
    },
    countRequests: (req, res) => {
      const text = (name: string) => (typeof req.query[name] === 'string' ? (req.query[name] as string) : undefined);
      const status = text('status');
      res.json(journal.tally({ path: text('path'), publicKey: text('publicKey'), paymentReference: text('paymentReference'), status: status === undefined ? undefined : Number(status) }));
    },
    clearRequests: async (req, res) => {
      const publicKey = merchantOf(req);
      await store.transaction(() => {
        journal.clear(publicKey);
        store.journalCleared(publicKey);
      });
      res.status(204).end();
    },
    streamEvents: (req, res) => {
      // Sandbox.handle() and fixture steps have no connection, and wait for an answer's end, which a stream never reaches.
      if (!(req.socket instanceof Socket)) throw inputError('GET /__sandbox/events is a stream that never ends: open it over HTTP, not through Sandbox.handle() or a fixtures step');
      const last = req.get('Last-Event-ID');
      const sink: EventSink = {
        write: (text) => {
          // Headers go with the first bytes, so that a refusal below can still answer in JSON.
          if (!res.headersSent) {
            res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no', Connection: 'close' });
            res.socket?.setNoDelay(true);
          }
          return res.write(text);
        },
        get pending() {
          return res.writableLength;
        },
        end: () => res.end(),
        destroy: () => res.destroy(),
      };
      try {
        const unsubscribe = deps.events.subscribe(sink, { publicKey: merchantOf(req), lastEventId: last === undefined ? undefined : /^[0-9]{1,15}$/.test(last) ? Number(last) : -1 });
        res.once('close', unsubscribe);
      } catch (error) {
        if (error instanceof SubscriberLimitError) throw new ApiError(503, { message: error.message, error: 'UNAVAILABLE' });
        throw error;
      }
    },
    getOverview: (req, res) => {
      const request = pageRequest(req.query as Record<string, unknown>);
      // Paged over merchants as GET /merchants is; only the page's merchants are counted.
      const page = pageOfList('overview', store.merchants(), (merchant) => merchant.publicKey, request, (merchant) => JSON.stringify(merchantOverview(deps.notifications, merchant)));
      sendPage(res, { total: page.total, limit: request.limit, next: page.next }, 'merchants', page.texts);
    },
    listMerchants: (req, res) => {
      const request = pageRequest(req.query as Record<string, unknown>);
      const contains = typeof req.query.publicKeyContains === 'string' ? req.query.publicKeyContains.toLowerCase() : undefined;
      const all = store.merchants();
      const merchants = contains === undefined ? all : all.filter((merchant) => merchant.publicKey.toLowerCase().includes(contains));
      const page = pageOfList('merchants', merchants, (merchant) => merchant.publicKey, request, ({ publicKey, createdAt }) => JSON.stringify({ publicKey, createdAt }));
      sendPage(res, { total: page.total, limit: request.limit, next: page.next }, 'merchants', page.texts);
    },
    listPayments: (req, res) => {
      const request = pageRequest(req.query as Record<string, unknown>);
      // The filters are tested on the stored rows as the page is walked (docs/decisions.md#d82-list-filters).
      const walk = paymentWalk(paymentFilters(req.query as Record<string, unknown>));
      // Views of the page's rows only: each view copies its record, and a view of every payment blocked the loop for half a second at 100k.
      const page = pageOfRows('payments', merchantsOf(merchantOf(req)), (key) => store.payments(key), request, (payment) => JSON.stringify(paymentView(payment)), walk);
      sendPage(res, { total: page.total, limit: request.limit, next: page.next }, 'payments', page.texts);
    },
    getPayment: (req, res) => {
      res.json(paymentView(onePayment(req)));
    },
    ...paymentActionHandlers({ store, engine: selector.engine, links: deps.links, clocks, outbox, onePayment: (req, publicKey) => onePayment(req, publicKey) }),
    getPaymentStory: (req, res) => {
      res.json(paymentStory({ store, journal, agenda: deps.notifications.agenda, clocks }, onePayment(req)));
    },
    completePayment: async (req, res) => {
      const { outcome, publicKey } = req.body as { outcome: 'success' | 'failure'; publicKey?: string };
      // The body's publicKey names the merchant when several used the reference (control-api.yaml, completePayment).
      await settle(res, () => onePayment(req, publicKey ?? merchantOf(req)), outcome);
    },
    completeNamedPayment: async (req, res) => {
      // The reference travels in the body: `.` and `..` cannot be a path segment, as every URL parser resolves them away.
      const { outcome, publicKey, paymentReference } = req.body as { outcome: 'success' | 'failure'; publicKey?: string; paymentReference: string };
      await settle(res, () => onePayment(req, publicKey, paymentReference, 'name one with publicKey in the body'), outcome);
    },
    listOrders: (req, res) => {
      const request = pageRequest(req.query as Record<string, unknown>);
      const page = pageOfRows('orders', merchantsOf(merchantOf(req)), (key) => store.orders(key), request, (order) => JSON.stringify(order));
      sendPage(res, { total: page.total, limit: request.limit, next: page.next }, 'orders', page.texts);
    },
    resetState: async (req, res) => {
      const publicKey = merchantOf(req);
      const to = await deps.knownStates.reset(publicKey, req.query.to === 'empty');
      res.json({ reset: publicKey ?? 'all', to });
    },
    loadFixtures: async (req, res) => {
      try {
        res.json(await deps.knownStates.loadFixtures(req.body as FixturesDocument));
      } catch (error) {
        if (!(error instanceof FixturesError)) throw error;
        res.status(400).json({ message: error.message, error: 'INPUT', ...(error.step ? { step: error.step } : {}) });
      }
    },
    getSnapshot: async (req, res) => {
      const publicKey = merchantOf(req);
      // Taken at once; written a piece at a time, the event loop free between pieces, so other requests go on.
      const state = deps.knownStates.take(publicKey);
      res.type('application/json');
      const closed = once(res, 'close');
      for (const chunk of snapshotText(state, deps.now())) {
        if (res.destroyed) return;
        if (!res.write(chunk)) await Promise.race([once(res, 'drain'), closed]);
        await yieldToLoop();
      }
      res.end();
    },
    putSnapshot: async (req, res) => {
      const publicKey = merchantOf(req);
      try {
        const payments = await deps.knownStates.loadSnapshot(req.body as SnapshotDocument, publicKey);
        res.json({ loaded: publicKey ?? 'all', payments });
      } catch (error) {
        if (error instanceof SnapshotError) throw inputError(error.message);
        throw error;
      }
    },
    getSchema: (_req, res) => {
      res.type('application/json').send(JSON.stringify(fixturesSchema(deps.controlOperations), null, 2));
    },
  };
}

/**
 * The JSON Schema of a fixtures document: the body schema of POST /fixtures
 * as the control API's document gives it (FixturesDocument), so the file
 * served and the check made never disagree.
 */
export function fixturesSchema(operations: HttpOperation[]): object {
  const operation = operations.find((candidate) => operationId(candidate) === 'loadFixtures');
  const schema = operation?.request?.body?.contents?.[0]?.schema;
  if (!schema) throw new Error('the control API document has no body schema for loadFixtures');
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', title: 'payments-sandbox fixtures document, version 1', ...schema };
}

/**
 * The journal's `status` filter as GET /requests takes it: an HTTP status
 * (`400`; `0` for no answer) or a class (`4xx`).
 * @throws ApiError 400 INPUT naming `status` for anything else
 */
function statusFilter(value: string | undefined): number | StatusClass | undefined {
  if (value === undefined) return undefined;
  if (/^[0-9]{1,3}$/.test(value)) return Number(value);
  if (/^[1-5]xx$/.test(value)) return value as StatusClass;
  throw inputError(`status must be an HTTP status (400; 0 for no answer) or a class (4xx), not ${JSON.stringify(value.slice(0, 100))}`);
}

// A list answer whose rows are already written as JSON: they are not written a second time.
function sendPage(res: Response, fields: Record<string, unknown>, list: string, texts: readonly string[]): void {
  res.type('application/json').send(pageBody(fields, list, texts));
}

async function writable(store: Store, dataFile: string | undefined): Promise<boolean> {
  if (!store.health().writable) return false;
  if (dataFile === undefined) return true;
  try {
    await access(dirname(dataFile), constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
