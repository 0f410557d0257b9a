import { copyFile, mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Router } from 'express';
import { ApiError } from '../errors.js';
import { ASSETS } from './router.js';

/**
 * The browsable API reference at `/__sandbox/docs` (README, "Pages"):
 * Swagger UI's own browser bundle, from the swagger-ui-dist
 * package, reading the documents `GET /__sandbox/openapi/{document}` serves.
 * Every file comes from the sandbox: no CDN, no font or script from
 * elsewhere, which a Content-Security-Policy of `'self'` holds the page to.
 */

/**
 * Where the build puts Swagger UI's files: dist/swagger-ui, found from src/
 * and from dist/ alike. They are copied from the swagger-ui-dist package
 * (a build-time dependency) so that an installed sandbox serves them
 * without it, and without its install-time telemetry script.
 */
export const RENDERER = fileURLToPath(new URL('../../dist/swagger-ui/', import.meta.url));

/** The renderer's files the page loads, and the licence texts that go with them (Apache-2.0). */
const RENDERER_FILES = ['swagger-ui-bundle.js', 'swagger-ui.css', 'LICENSE', 'NOTICE', 'swagger-ui-bundle.js.LICENSE.txt'];

// Swagger UI draws its icons from data: URIs; beyond those, the page loads nothing the sandbox does not serve.
const CONTENT_SECURITY_POLICY =
  "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";

/**
 * The reference's routes, mounted at `/__sandbox/docs`: the page at the
 * mount itself, its script and style sheet, and the renderer's files.
 * Anything else is a 404 in the control API's shape, `{message, error}`.
 */
export function referenceRouter(): Router {
  const router = express.Router();
  router.use((_req, res, next) => {
    res.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    next();
  });
  router.get('/', (_req, res) => res.sendFile('docs.html', { root: ASSETS }));
  router.get(['/docs.js', '/docs.css'], (req, res) => res.sendFile(req.path.slice(1), { root: ASSETS }));
  // The licence texts have no extension: they are plain text, not a download.
  router.use(express.static(RENDERER, { index: false, setHeaders: (res, path) => !extname(path) && res.type('text/plain') }));
  router.use((req) => {
    throw new ApiError(404, { message: `No file ${req.path.slice(0, 100)} in the API reference`, error: 'NOT_FOUND' });
  });
  return router;
}

/**
 * Build step: copies Swagger UI's bundle, style sheet and licence texts from
 * the installed swagger-ui-dist package into {@link RENDERER}.
 * @throws Error when swagger-ui-dist is not installed
 */
export async function prepareRenderer(): Promise<void> {
  const from = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  await mkdir(RENDERER, { recursive: true });
  for (const file of RENDERER_FILES) await copyFile(join(from, file), join(RENDERER, file));
}
