import cors from 'cors';
import express, { type Express, type RequestHandler } from 'express';
import { notFound } from '../errors.js';
import { controlRouter, type ControlDependencies } from '../control/router.js';
import { apiRouter, type ApiDependencies } from './api.js';
import { renderError } from './render-error.js';
import { AllowedHosts, hostGuard } from './host-guard.js';

/** The base path of the Payments API (spec, Conventions: `{base_url}` ends in `/api/v2`). */
export const API_BASE = '/api/v2';

/** The base path of the control API. */
export const CONTROL_BASE = '/__sandbox';

/** Everything the express app is made of. */
export type AppDependencies = ApiDependencies &
  ControlDependencies & {
    /** the Host names it answers to; default the loopback names only */
    allowedHosts?: AllowedHosts;
    /** answer browsers of any origin on the Payments API (`--cors`); off by default */
    cors?: boolean;
  };

/** The headers a browser client may read: the sandbox's own, which say how a request was answered. */
export const EXPOSED_HEADERS = ['X-Sandbox-Scenario', 'X-Sandbox-Warnings', 'X-Sandbox-Reason', 'X-Sandbox-Detail', 'X-Sandbox-Delay'];

/**
 * The sandbox's express app: the Payments API, the pages, the control API,
 * and one error renderer. Every answer, errors and static files included,
 * carries `X-Content-Type-Options: nosniff`, and a request for a Host the
 * sandbox was not started for is refused before anything reads it.
 */
export function createApp(deps: AppDependencies): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // A browser must not read a JSON answer, or a value echoed in one, as a script or a page.
  app.use((_req, res, next) => {
    res.set('X-Content-Type-Options', 'nosniff');
    next();
  });
  // Against DNS rebinding: a page that made its own name point at the sandbox still sends that name.
  app.use(hostGuard(deps.allowedHosts ?? new AllowedHosts(), CONTROL_BASE));
  // The dashboard is a static page that talks to the control API from the browser.
  app.get(
    [CONTROL_BASE, `${CONTROL_BASE}/`],
    onFirstUse(async () => {
      const { ASSETS } = await import('../pages/router.js');
      return (_req, res) => {
        res.set('Content-Security-Policy', "default-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'");
        res.sendFile('dashboard.html', { root: ASSETS });
      };
    }),
  );
  // The API reference is static too: Swagger UI in the browser, reading the documents the control API serves.
  app.use(`${CONTROL_BASE}/docs`, onFirstUse(async () => (await import('../pages/reference.js')).referenceRouter()));
  app.use(CONTROL_BASE, controlRouter(deps));
  app.use(
    '/pages',
    onFirstUse(async () => (await import('../pages/router.js')).pagesRouter({ store: deps.store, engine: deps.selector.engine, now: deps.now })),
  );
  // A merchant's browser code calls the Payments API from its own origin; the control API stays same-origin.
  if (deps.cors) app.use(API_BASE, cors({ origin: true, exposedHeaders: EXPOSED_HEADERS, maxAge: 600 }));
  app.use(API_BASE, apiRouter(deps));
  // Every other target, `*` and other forms no route pattern matches included.
  app.use((req) => {
    throw notFound(`No resource at ${req.method} ${req.path}; the Payments API is under ${API_BASE}`);
  });
  app.use(renderError(deps.selector.engine.random, API_BASE));
  return app;
}

// The pages and the dashboard are for browsers, which come later if at all: built on the first request
// for them rather than at start-up, which CI jobs wait for.
function onFirstUse(build: () => Promise<RequestHandler>): RequestHandler {
  let handler: Promise<RequestHandler> | undefined;
  return async (req, res, next) => {
    handler ??= build();
    await (await handler)(req, res, next);
  };
}
