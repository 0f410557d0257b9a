import { describe, expect, it, vi } from 'vitest';
import { renderError } from '../../../src/api/error-answer.js';
import { ApiError } from '../../../src/errors.js';
import { StoreUnavailableError } from '../../../src/store/store.js';

/**
 * The one place an error becomes an answer, for both APIs and the pages
 * (src/api/error-answer.ts, renderError): each API's envelope as it was
 * thrown, its headers made safe to send, JSON.
 */

describe('renderError', () => {
  it('renders an ApiError as it was thrown, in its API’s envelope, with its headers made header-safe', () => {
    const control = renderError(new ApiError(409, { message: 'Payment P1 is SUCCESSFUL, not PENDING', error: 'CONFLICT' }));
    expect(control).toMatchObject({ status: 409, headers: { 'Content-Type': 'application/json; charset=utf-8' } });
    expect(JSON.parse(control.text)).toEqual({ message: 'Payment P1 is SUCCESSFUL, not PENDING', error: 'CONFLICT' });
    const provider = renderError(new ApiError(400, { status: 'ERROR', data: { code: 'S12', message: 'Invalid/Missing parameters' } }, undefined, { 'X-Sandbox-Detail': 'amount ☕ é' }));
    expect(JSON.parse(provider.text)).toEqual({ status: 'ERROR', data: { code: 'S12', message: 'Invalid/Missing parameters' } });
    expect(provider.headers['X-Sandbox-Detail']).toBe('amount ? ?');
  });

  it('answers 503 for a store that cannot write, and 413 or 400 for a body the parser could not read', () => {
    expect(renderError(new StoreUnavailableError('disk full')).status).toBe(503);
    expect(renderError(Object.assign(new Error('request entity too large'), { status: 413, limit: 1024 })).status).toBe(413);
    expect(renderError(Object.assign(new Error('Unexpected end of JSON input'), { status: 400 })).status).toBe(400);
  });

  it('answers anything else 500 without its message, which goes to stderr', () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const rendered = renderError(new TypeError('secret detail'));
      expect(rendered.status).toBe(500);
      expect(rendered.text).not.toContain('secret detail');
      expect(errors).toHaveBeenCalled();
    } finally {
      errors.mockRestore();
    }
  });
});
