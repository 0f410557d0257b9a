import { describe, expect, it } from 'vitest';
import { paymentsOperations } from '../../../src/index.js';
import { operationId, requestViolations, responseViolations } from '../../../src/validation/operations.js';
import { describe as describeViolations } from '../../../src/validation/check-request.js';

// The harness trusts these checks for every response; here they are shown to refuse what they must.
const operations = await paymentsOperations();
const initiate = operations.find((operation) => operationId(operation) === 'initiatePayment')!;
const json = { 'content-type': 'application/json' };

describe('response checks against the document', () => {
  it('accept a documented S20 envelope', () => {
    const body = { status: 'SUCCESS', data: { code: 'S20', message: 'Transaction is pending', payments: { paymentReference: 'R', linkingReference: 'L', redirectUrl: 'http://127.0.0.1/x' } } };
    expect(responseViolations(initiate, { status: 200, headers: json, body })).toEqual([]);
  });

  it('refuse an S20 envelope without redirectUrl, a failure with a non-empty payments, and an error body without message', () => {
    const noRedirect = { status: 'SUCCESS', data: { code: 'S20', message: 'Transaction is pending', payments: { paymentReference: 'R', linkingReference: 'L' } } };
    expect(responseViolations(initiate, { status: 200, headers: json, body: noRedirect })).not.toEqual([]);
    const failure = { status: 'SUCCESS', data: { code: 'S12', message: 'Transaction Failed', payments: { paymentReference: 'R' } } };
    expect(responseViolations(initiate, { status: 200, headers: json, body: failure })).not.toEqual([]);
    expect(responseViolations(initiate, { status: 400, headers: json, body: { error: 'INPUT' } })).not.toEqual([]);
  });
});

describe('request checks against the document', () => {
  it('name each offending field', () => {
    const body = { paymentType: 'ACCOUNT', publicKey: 'P', paymentReference: 'R', amount: '1.234', currency: 'NGN', country: 'NG', bankCode: '058' };
    const violations = requestViolations(initiate, { method: 'POST', path: '/payments/initiates', query: {}, headers: { ...json, 'content-length': '100' }, body });
    expect(describeViolations(violations)).toBe('accountNumber is required; amount must match pattern "^[0-9]{1,13}(\\.[0-9]{1,2})?$"');
  });
});
