import { API_BASE } from '../model/bases.js';

/**
 * The prefixes the Payments API is served under: `/api/v2`, and `/api/v3`,
 * where the provider's current documentation queries a payment
 * (docs/decisions.md#d56-status-query-v3). `server` is the base its operations' paths are relative
 * to: the document's `/api/v2`, or `/api` for an operation that names its own
 * server (`/v3/payments/query/{paymentReference}`).
 */
export const API_BASES = [
  { prefix: API_BASE, server: API_BASE },
  { prefix: '/api/v3', server: '/api' },
] as const;

/** One of API_BASES. */
export type ApiBase = (typeof API_BASES)[number];

/** The API base a request target is under (matched without regard to case, as express matches paths), if any. */
export function apiBaseOf(url: string | undefined): ApiBase | undefined {
  if (url === undefined) return undefined;
  return API_BASES.find(({ prefix }) => {
    if (url.length < prefix.length || url.slice(0, prefix.length).toLowerCase() !== prefix) return false;
    const next = url[prefix.length];
    return next === undefined || next === '/' || next === '?';
  });
}

/** True when a request target is under one of API_BASES. */
export const isApiTarget = (url: string | undefined): boolean => apiBaseOf(url) !== undefined;
