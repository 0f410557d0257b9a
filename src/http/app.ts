import express, { type Express, type RequestHandler } from 'express';
import type { RequestListener } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { notFound } from '../errors.js';
import type { ControlDependencies } from '../control/context.js';
import { CONTROL_BASE, controlCore, type ControlCore } from '../control/core.js';
import { API_BASE, API_BASES, isApiTarget, paymentsApi, type ApiDependencies } from '../api/core.js';
import { hostGuard } from '../guards/host.js';
import { apiListener } from './api-listener.js';
import type { HungConnections } from './faults.js';
import { socketlessHandler, type SandboxAnswer, type SandboxRequest } from './handle.js';
import { controlListener } from './control-listener.js';
import { expressErrors } from './render-error.js';

export { API_BASE, EXPOSED_HEADERS } from '../api/core.js';
export { CONTROL_BASE } from '../control/core.js';

/** Everything the sandbox's HTTP surface is made of: both APIs', the connections `hang` holds, and the Host of a request `handle()` is given without one. */
export type AppDependencies = ApiDependencies &
  ControlDependencies & {
    /** the connections held open by `hang` */
    hung: HungConnections;
    /** the `host` of the sandbox's url (`127.0.0.1:4010`), known once it listens */
    host: () => string;
  };

/** The sandbox's HTTP surface: the express app, and the listener a server serves it with. */
export interface SandboxApp {
  /** every part of the sandbox, the Payments API included (for in-process tests) */
  app: Express;
  /** what the HTTP and HTTPS servers call: the Payments API directly, everything else through `app` */
  listener: RequestListener;
  /** `Sandbox.handle()`: one request served in process, without a socket (src/http/handle.ts) */
  handle: (request: SandboxRequest) => Promise<SandboxAnswer>;
  /** the control API's core, which fixtures steps are routed by */
  control: ControlCore;
}

/**
 * The sandbox's app: the Payments API (src/api/core.ts, on node's request
 * and response by src/http/api-listener.ts), and the pages, the
 * control API and one error renderer on express. Every answer, errors and
 * static files included, carries `X-Content-Type-Options: nosniff`, and a
 * request for a Host the sandbox was not started for is refused before
 * anything reads it.
 */
export function createApp(deps: AppDependencies): SandboxApp {
  const core = paymentsApi(deps);
  const api = apiListener(core, deps.hung);
  const control = controlCore(deps);
  const app = express();
  // The same listener as the servers call directly, for a request that comes through the app.
  for (const { prefix } of API_BASES) app.use(prefix, (req, res) => api(req, res));
  app.disable('x-powered-by');
  app.set('etag', false);
  // A browser must not read a JSON answer, or a value echoed in one, as a script or a page.
  app.use((_req, res, next) => {
    res.set('X-Content-Type-Options', 'nosniff');
    next();
  });
  // Against DNS rebinding: a page that made its own name point at the sandbox still sends that name.
  app.use(hostGuard(deps.allowedHosts, CONTROL_BASE));
  // The dashboard (the QA cockpit, docs/decisions.md#d83-dashboard-addresses): one shell page for every view's
  // address under /__sandbox/dashboard/, whose modules read the control API from the browser. The old address
  // sends there; an unknown view is answered 404 with the same shell, which then says "no such view".
  const toDashboard: RequestHandler = (_req, res) => res.redirect(303, `${CONTROL_BASE}/dashboard/`);
  app.get([CONTROL_BASE, `${CONTROL_BASE}/`], toDashboard);
  app.use(
    `${CONTROL_BASE}/dashboard`,
    onFirstUse(async () => {
      const { ASSETS } = await import('../pages/router.js');
      // The dashboard's addresses are defined once, in the module its router runs in the browser.
      const { viewOf } = (await import(pathToFileURL(join(ASSETS, 'dashboard', 'views.js')).href)) as { viewOf: (path: string) => object | undefined };
      return (req, res, next) => {
        if (req.method !== 'GET' && req.method !== 'HEAD') return next();
        // Without its slash the address names no view: the overview's, its query kept.
        const [path, search] = req.originalUrl.split(/\?(.*)/s);
        if (!path!.endsWith('/') && req.path === '/') return res.redirect(303, `${CONTROL_BASE}/dashboard/${search ? `?${search}` : ''}`);
        res.set('Content-Security-Policy', DASHBOARD_POLICY);
        res.set('Cache-Control', 'no-store');
        res.status(viewOf(req.path.slice(1)) ? 200 : 404).sendFile('dashboard.html', { root: ASSETS });
      };
    }),
  );
  // The API reference is static too: Swagger UI in the browser, reading the documents the control API serves.
  app.use(`${CONTROL_BASE}/docs`, onFirstUse(async () => (await import('../pages/reference.js')).referenceRouter()));
  // MCP over Streamable HTTP (README, "Agents"): the control operations as tools, behind the control API's guards; loaded on first use.
  app.all(`${CONTROL_BASE}/mcp`, onFirstUse(async () => express.Router().use((await import('../mcp/http-endpoint.js')).mcpEndpoint({ ...deps, handle: (request) => handle(request) }))));
  app.use(CONTROL_BASE, controlListener(control));
  app.use(
    '/pages',
    onFirstUse(async () =>
      (await import('../pages/router.js')).pagesRouter({
        store: deps.store, engine: deps.selector.engine, now: (publicKey) => deps.clocks.now(publicKey), outbox: deps.outbox,
      }),
    ),
  );
  app.get('/favicon.ico', (_req, res) => res.redirect(301, '/pages/assets/favicon.svg')); // browsers ask every site for it
  // Every other target, `*` and other forms no route pattern matches included.
  app.use((req) => {
    throw notFound(`No resource at ${req.method} ${req.path}; the Payments API is under ${API_BASE}`);
  });
  app.use(expressErrors(API_BASE));
  const handle = socketlessHandler({ api: core, isApiTarget, control, controlTarget, app, host: deps.host });
  return { app, listener: (req, res) => (isApiTarget(req.url) ? api(req, res) : app(req, res)), handle, control };
}

/**
 * The target below the control base of a request the control core serves,
 * as express's mount finds it (in any case): any below `/__sandbox/` but the
 * dashboard's, the API reference's and the MCP endpoint's, which express serves.
 */
function controlTarget(url: string): string | undefined {
  const found = CONTROL_TARGET.exec(url);
  return found ? url.slice(CONTROL_BASE.length) : undefined;
}

const CONTROL_TARGET = /^\/__sandbox(?!\/(?:dashboard|docs|mcp)(?:[/?#]|$))(?=\/[^?#])/i;

// Everything the dashboard loads comes from the sandbox itself; no inline script or style.
const DASHBOARD_POLICY = "default-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

// The pages and the dashboard are for browsers, which come later if at all: built on the first request
// for them rather than at start-up, which CI jobs wait for.
function onFirstUse(build: () => Promise<RequestHandler>): RequestHandler {
  let handler: Promise<RequestHandler> | undefined;
  return async (req, res, next) => {
    handler ??= build();
    await (await handler)(req, res, next);
  };
}
