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
 * The warning of a bank list asked for without credentials: the provider's
 * description gives the path no security, the sandbox's every other
 * Payments API call but the hash's needs them (docs/decisions.md#d65-banks-without-token).
 */
export const BANKS_WITHOUT_TOKEN =
  'Authorization: none sent; the provider describes the bank list without security, but the spec gives its calls a bearer token (Authentication)';

/**
 * GET /banks/merchant/{publicKey}: the banks, each with the fields it asks
 * for and its `minimumAmount`, the account-payment minimum of the catalogue
 * (a number, as the provider writes it): the same figure the initiate
 * refuses below. Answered 201, as the provider's document labels it and
 * its PHP SDK's tests expect. Asked for without credentials, for the
 * path's merchant, it warns (BANKS_WITHOUT_TOKEN).
 */
export function listBanks(facts: RequestFacts, selection: Selection, env: OperationEnv): Answer {
  const minimumAmount = toNumber(env.accountMinimum);
  const banks = BANKS.map((bank) => ({ bankName: bank.bankName, bankCode: bank.bankCode, url: null, logo: null, status: 'ACTIVE', minimumAmount, requiredFields: bank.requiredFields }));
  const answer: Answer = { ...answerWith(selection.rule, () => banks, 'merchantBanks'), status: 201 };
  return facts.headers.authorization === undefined ? { ...answer, warnings: [BANKS_WITHOUT_TOKEN] } : answer;
}

/** GET /networks: the mobile money networks, under `data.networks` of the usual envelope. */
export function listNetworks(_facts: RequestFacts, selection: Selection): Answer {
  return answerWith(selection.rule, () => NETWORKS, 'networks');
}
