/**
 * Where each API lives under the sandbox's base URL: the one definition of
 * both, for every part that routes to them, names them in a link or serves
 * their documents.
 */

/** The base path of the Payments API (spec, Conventions: `{base_url}` ends in `/api/v2`). */
export const API_BASE = '/api/v2';

/** The base path of the control API (README, "The control API"), under which the dashboard and the API reference live too. */
export const CONTROL_BASE = '/__sandbox';
