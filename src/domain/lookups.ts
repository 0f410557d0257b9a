import { BANKS, NETWORKS } from '../model/banks.js';
import { toNumber } from '../model/money.js';
import type { Selection } from '../scenarios/selector.js';
import { answerWith, type Answer, type OperationEnv } from './answer.js';
import type { RequestFacts } from './request.js';

/**
 * The lookups the provider's SDKs call beside payments (docs/decisions.md#d52-bank-lookups):
 * the banks of a merchant's account payments and the mobile money networks.
 * They change nothing.
 */

/**
 * GET /banks/merchant/{publicKey}: the banks, each with the fields it asks
 * for and its `minimumAmount`, the account-payment minimum of the catalogue
 * (a number, as the provider writes it): the same figure the initiate
 * refuses below. Answered 201, as the provider's document labels it and
 * its PHP SDK's tests expect.
 */
export function listBanks(_facts: RequestFacts, selection: Selection, env: OperationEnv): Answer {
  const minimumAmount = toNumber(env.accountMinimum);
  const banks = BANKS.map((bank) => ({ bankName: bank.bankName, bankCode: bank.bankCode, url: null, logo: null, status: 'ACTIVE', minimumAmount, requiredFields: bank.requiredFields }));
  return { ...answerWith(selection.rule, () => banks, 'merchantBanks'), status: 201 };
}

/** GET /networks: the mobile money networks, under `data.networks` of the usual envelope. */
export function listNetworks(_facts: RequestFacts, selection: Selection): Answer {
  return answerWith(selection.rule, () => NETWORKS, 'networks');
}
