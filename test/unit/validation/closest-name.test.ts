import { describe, expect, it } from 'vitest';
import { closestName, propertyNamesAt } from '../../../src/validation/closest-name.js';

/** "did you mean ...?": the closest allowed name, only when it is close enough to be a typo. */
describe('closestName', () => {
  it('finds a typo of one of the names: letters swapped, one missing, another case', () => {
    expect(closestName('expcet', ['id', 'merchant', 'api', 'control', 'expect'])).toBe('expect');
    expect(closestName('paymentRefernce', ['paymentReference', 'publicKey'])).toBe('paymentReference');
    expect(closestName('PublicKey', ['paymentReference', 'publicKey'])).toBe('publicKey');
  });

  it('suggests nothing for a name unlike any, or for a short name two edits away', () => {
    expect(closestName('colour', ['id', 'merchant', 'api', 'control', 'expect'])).toBeUndefined();
    expect(closestName('ab', ['id'])).toBeUndefined();
  });
});

describe('propertyNamesAt', () => {
  const schema = {
    type: 'object',
    properties: {
      steps: { type: 'array', items: { oneOf: [{ required: ['api'] }], properties: { api: {}, expect: { properties: { status: {}, code: {} } } } } },
    },
  };

  it('walks properties and array items to the names allowed there', () => {
    expect(propertyNamesAt(schema, [])).toEqual(['steps']);
    expect(propertyNamesAt(schema, ['steps', '3'])).toEqual(['api', 'expect']);
    expect(propertyNamesAt(schema, ['steps', '0', 'expect'])).toEqual(['status', 'code']);
    expect(propertyNamesAt(schema, ['nowhere'])).toEqual([]);
  });
});
