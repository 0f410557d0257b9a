import { describe, expect, it } from 'vitest';
import { controlTokenCheck, foreignRequestRefusal } from '../../../src/control/guards.js';

/**
 * The control API's guards as functions of a request's method and headers
 * (src/control/guards.ts): what a page of another site, a form, or a caller
 * without the control token is refused, in the control API's shape.
 */

describe('foreignRequestRefusal', () => {
  it('lets reads through whatever they carry, and a state change with no body or a JSON one', () => {
    expect(foreignRequestRefusal('GET', { origin: 'https://evil.example', 'content-type': 'text/plain' })).toBeUndefined();
    expect(foreignRequestRefusal('POST', {})).toBeUndefined();
    expect(foreignRequestRefusal('POST', { 'content-type': 'application/json; charset=utf-8', 'content-length': '2' })).toBeUndefined();
  });

  it('refuses a state change from a page of another site with 403 FORBIDDEN naming the origin', () => {
    const refused = foreignRequestRefusal('DELETE', { origin: 'https://evil.example', host: '127.0.0.1:4010' });
    expect(refused).toMatchObject({ status: 403, body: { error: 'FORBIDDEN', message: expect.stringContaining('https://evil.example') } });
  });

  it('refuses a form or a text body with 415, and YAML unless the operation reads it', () => {
    expect(foreignRequestRefusal('POST', { 'content-type': 'application/x-www-form-urlencoded', 'content-length': '3' })).toMatchObject({ status: 415, body: { error: 'UNSUPPORTED_MEDIA_TYPE' } });
    expect(foreignRequestRefusal('POST', { 'content-length': '3' })?.body).toMatchObject({ message: expect.stringContaining('a body without Content-Type') });
    expect(foreignRequestRefusal('POST', { 'content-type': 'application/yaml', 'content-length': '3' })).toMatchObject({ status: 415 });
    expect(foreignRequestRefusal('POST', { 'content-type': 'application/yaml', 'content-length': '3' }, true)).toBeUndefined();
    expect(foreignRequestRefusal('POST', { 'content-type': 'text/plain', 'content-length': '3' }, true)).toMatchObject({ status: 415, body: { message: expect.stringContaining('application/yaml') } });
  });
});

describe('controlTokenCheck', () => {
  it('asks nothing of a sandbox started without a token', () => {
    expect(controlTokenCheck(undefined)(undefined)).toBeUndefined();
    expect(controlTokenCheck('')('Bearer anything')).toBeUndefined();
  });

  it('refuses a request without the token, or with another, with 401 and a Bearer challenge, saying which', () => {
    const check = controlTokenCheck('s3cret');
    const missing = check(undefined);
    expect(missing).toMatchObject({ status: 401, body: { error: 'UNAUTHORIZED', message: expect.stringContaining('needs Authorization') }, headers: { 'WWW-Authenticate': expect.stringContaining('Bearer') } });
    expect(check('Basic czNjcmV0')).toMatchObject({ status: 401, body: { message: expect.stringContaining('needs Authorization') } });
    expect(check('Bearer s3cret-not')).toMatchObject({ status: 401, body: { message: expect.stringContaining('not the one') } });
  });

  it('lets the token through in any case of the scheme, with spaces around it', () => {
    const check = controlTokenCheck('s3cret');
    expect(check('Bearer s3cret')).toBeUndefined();
    expect(check('bearer   s3cret  ')).toBeUndefined();
  });
});
