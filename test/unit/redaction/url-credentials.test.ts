import { describe, expect, it } from 'vitest';
import { redactUrlCredentials } from '../../../src/redaction/url-credentials.js';

describe('redactUrlCredentials', () => {
  it.each([
    ['http://user:s3cretpw@127.0.0.1:4010/', 'http://***@127.0.0.1:4010/'],
    ['https://token@sandbox.test', 'https://***@sandbox.test'],
    // An `@` in the password, unencoded: everything up to the last one before the host goes.
    ['http://us@er:p@ss@host:9/x', 'http://***@host:9/x'],
    ['cannot reach http://a:b@h/: Request ... credentials: http://a:b@h/__sandbox/snapshot', 'cannot reach http://***@h/: Request ... credentials: http://***@h/__sandbox/snapshot'],
  ])('hides the user and password of %s', (text, shown) => {
    expect(redactUrlCredentials(text)).toBe(shown);
  });

  it('leaves a URL without them, an e-mail address and a path with an @ as they are', () => {
    for (const text of ['http://127.0.0.1:4010/__sandbox', 'ops@example.com wrote', 'http://host/users/@me']) expect(redactUrlCredentials(text)).toBe(text);
  });
});
