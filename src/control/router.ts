import express, { type Router } from 'express';

/** What the control API needs. */
export interface ControlDependencies {
  ready: () => boolean;
}

/** The control API under `/__sandbox` (README, "Control API"). */
export function controlRouter(deps: ControlDependencies): Router {
  const router = express.Router();
  router.get('/health', (_req, res) => {
    res.status(deps.ready() ? 200 : 503).json({ status: deps.ready() ? 'ok' : 'starting' });
  });
  return router;
}
