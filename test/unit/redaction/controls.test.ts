import { describe, expect, it } from 'vitest';
import { escapeControls } from '../../../src/redaction/controls.js';

/** Control characters written visibly, so a value can neither start a log line nor steer a terminal (README, "Logs"). */

describe('escapeControls', () => {
  it('escapes C0, DEL, C1, the line and paragraph separators and the bidirectional controls as JSON writes them', () => {
    expect(escapeControls('a\nb\rc\td\u001b[31me\u0000f\u007fg\u009bh\u2028i\u2029j\u202ek\u2066l\u2069m')).toBe(
      'a\\nb\\rc\\td\\u001b[31me\\u0000f\\u007fg\\u009bh\\u2028i\\u2029j\\u202ek\\u2066l\\u2069m',
    );
  });

  it('keeps the meaning of a JSON line, and leaves text without control characters as it is', () => {
    const value = { paymentReference: 'REF\u007f\u0085\u2028\u202e-1', note: 'ok' };
    const line = escapeControls(JSON.stringify(value));
    expect(line).not.toMatch(/[\u007f-\u009f\u2028\u2029\u202a-\u202e]/);
    expect(JSON.parse(line)).toEqual(value);
    const plain = 'POST /payments/initiates 200 S20 card-needs-authentication 2.1ms SBREF-CARD-0001 é ü 中';
    expect(escapeControls(plain)).toBe(plain);
  });
});
