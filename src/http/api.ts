import express, { type Request, type RequestHandler, type Router } from 'express';
import type { Answer, Links, OperationContext } from '../domain/answer.js';
import { authenticate, checkPublicKey, exchangeKey, issueToken } from '../domain/authentication.js';
import { computeHash, createCheckoutLink } from '../domain/checkout.js';
import type { Merchant } from '../domain/merchants.js';
import { createOrder, listOrders, updateOrders } from '../domain/orders.js';
import { cancelPayment, completePayment, initiatePayment, refundPayment } from '../domain/payments.js';
import { ApiError, notFound } from '../errors.js';
import type { OperationId } from '../scenarios/catalogue.js';
import type { ScenarioEngine } from '../scenarios/engine.js';
import type { Store } from '../store/store.js';
import { operationId, type HttpOperation } from '../validation/operations.js';
import { validateRequest } from './validate.js';

/** What the Payments API router needs. */
export interface ApiDependencies {
  operations: HttpOperation[];
  store: Store;
  engine: ScenarioEngine;
  links: Links;
  now: () => string;
}

type Body = Record<string, unknown>;
type Operation = (ctx: OperationContext, body: Body, req: Request) => Answer;

/** The handler of each operationId of openapi/payments-api.yaml. exchangeKeys is answered apart: it has no merchant yet. */
const OPERATIONS: Record<Exclude<OperationId, 'exchangeKeys'>, Operation> = {
  computeHash: (ctx, body) => computeHash(ctx, body),
  initiatePayment: (ctx, body) => initiatePayment(ctx, body),
  createCheckoutLink: (ctx, body) => createCheckoutLink(ctx, body),
  createOrder: (ctx, body) => createOrder(ctx, body),
  updateOrders: (ctx, body) => updateOrders(ctx, body),
  listOrders: (ctx) => listOrders(ctx),
  validatePayment: (ctx, body) => completePayment(ctx, 'validatePayment', body),
  completeMomoPayment: (ctx, body) => completePayment(ctx, 'completeMomoPayment', body),
  refundPayment: (ctx, body) => refundPayment(ctx, body),
  cancelPayment: (ctx, body) => cancelPayment(ctx, body),
};

/**
 * The Payments API v2 under `/api/v2`: one route per operation of the
 * OpenAPI document. A request goes: JSON body -> authentication -> validation
 * against the document -> the operation -> group commit -> the envelope.
 */
export function apiRouter(deps: ApiDependencies): Router {
  const router = express.Router();
  // Read every body as JSON, whatever its Content-Type says: the API speaks nothing else.
  router.use(express.json({ type: () => true, limit: '1mb' }));
  for (const operation of deps.operations) {
    const id = operationId(operation) as OperationId;
    const path = operation.path.replace(/\{([^}]+)\}/g, ':$1');
    const method = operation.method.toLowerCase() as 'get' | 'post' | 'put';
    router[method](path, ...handlersFor(id, operation, deps));
  }
  // The key exchange answers its 404 with `error` only (spec, endpoint 1).
  router.all(['/encrypt/keys', '/encrypt/keys/{*rest}'], () => {
    throw new ApiError(404, { error: 'Not Found' });
  });
  router.all('/{*rest}', (req) => {
    throw notFound(`No resource at ${req.method} ${req.baseUrl}${req.path}`);
  });
  return router;
}

function handlersFor(id: OperationId, operation: HttpOperation, deps: ApiDependencies): RequestHandler[] {
  const validate = validateRequest(operation);
  if (id === 'exchangeKeys') {
    return [
      validate,
      answer(deps, (req) => {
        const merchant = exchangeKey(deps.store, String((req.body as Body).key), deps.now());
        return {
          status: 200,
          scenario: deps.engine.decide({ operation: id, body: req.body as Body, headers: {} }).name,
          body: { status: 'SUCCESS', data: { code: '00', message: 'Successful', EncryptedSecKey: { encryptedKey: issueToken(merchant) } } },
        };
      }),
    ];
  }
  const allowBasic = (operation.security ?? []).some((set) => set.some((scheme) => scheme.type === 'http' && scheme.scheme === 'basic'));
  const authenticated: RequestHandler = (req, res, next) => {
    const merchant = authenticate(deps.store, req.headers.authorization, allowBasic, deps.now());
    checkPublicKey(merchant, req.params.publicKey);
    res.locals.merchant = merchant;
    next();
  };
  const checkBody: RequestHandler = (req, res, next) => {
    checkPublicKey(res.locals.merchant as Merchant, (req.body as Body | undefined)?.publicKey);
    next();
  };
  const run = OPERATIONS[id];
  return [
    authenticated,
    validate,
    checkBody,
    answer(deps, (req, merchant) => run(context(deps, merchant!, req), (req.body ?? {}) as Body, req)),
  ];
}

function context(deps: ApiDependencies, merchant: Merchant, req: Request): OperationContext {
  return {
    merchant,
    store: deps.store,
    links: deps.links,
    now: deps.now,
    decide: (facts) => deps.engine.decide({ ...facts, headers: req.headers }),
  };
}

// Answers only once every change the operation made is on disk (group commit).
function answer(deps: ApiDependencies, operate: (req: Request, merchant?: Merchant) => Answer): RequestHandler {
  return async (req, res) => {
    const result = operate(req, res.locals.merchant as Merchant | undefined);
    await deps.store.commit();
    res.set('X-Sandbox-Scenario', result.scenario).status(result.status).json(result.body);
  };
}
