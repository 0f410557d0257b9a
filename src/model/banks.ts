/**
 * The banks a merchant's account payments can use, and the mobile money
 * networks, as the provider's lookups answer them (external-api.yml,
 * BanksResponse; the Node SDK's `MobileMoneyNetworks` types; docs/decisions.md#d52-bank-lookups).
 */

/** Which of an account payment's fields a bank asks the customer for: `YES` or `NO`, as the provider writes them. */
export interface RequiredFields {
  accountName: 'YES' | 'NO';
  accountNumber: 'YES' | 'NO';
  isBankCode: 'YES' | 'NO';
  bvn: 'YES' | 'NO';
  dateOfBirth: 'YES' | 'NO';
  mobileNumber: 'YES' | 'NO';
}

/** A bank of the list, without its minimum amount: that is the catalogue's (src/scenarios/engine.ts, accountMinimum). */
export interface Bank {
  bankName: string;
  /** the 3-digit collection code an account initiate sends as `bankCode` */
  bankCode: string;
  requiredFields: RequiredFields;
}

const fields = (yes: Array<keyof RequiredFields>): RequiredFields => {
  const all: RequiredFields = { accountName: 'NO', accountNumber: 'NO', isBankCode: 'YES', bvn: 'NO', dateOfBirth: 'NO', mobileNumber: 'NO' };
  for (const field of yes) all[field] = 'YES';
  return all;
};

/** The provider's example list, bank for bank (external-api.yml, BanksResponse). */
export const BANKS: readonly Bank[] = [
  { bankName: 'Guarantee Trust Bank', bankCode: '058', requiredFields: fields(['accountName']) },
  { bankName: 'United Bank for Africa', bankCode: '033', requiredFields: fields(['accountName', 'accountNumber', 'bvn', 'dateOfBirth']) },
  { bankName: 'First Bank of Nigeria', bankCode: '011', requiredFields: fields([]) },
  { bankName: 'Sterling Bank', bankCode: '232', requiredFields: fields(['accountName', 'accountNumber', 'mobileNumber']) },
  { bankName: 'Wema Bank', bankCode: '035', requiredFields: fields(['accountName', 'accountNumber', 'mobileNumber']) },
  { bankName: 'Zenith Bank', bankCode: '057', requiredFields: fields(['accountName', 'accountNumber', 'bvn', 'dateOfBirth']) },
];

/** A mobile money network, in the shape the provider's Node SDK types (`networks`, `uniqueKey`, `status`, `voucherCode`). */
export interface Network {
  networks: string;
  uniqueKey: string;
  status: 'ACTIVE';
  /** whether the network asks the customer for a voucher code */
  voucherCode: boolean;
}

/** The networks the provider's SDKs accept for a MOMO initiate (its Python validator: AIRTEL, TIG, VODAFONE, MTN). */
export const NETWORKS: readonly Network[] = [
  { networks: 'MTN', uniqueKey: 'MTN', status: 'ACTIVE', voucherCode: false },
  { networks: 'AIRTEL', uniqueKey: 'AIRTEL', status: 'ACTIVE', voucherCode: false },
  { networks: 'TIGO', uniqueKey: 'TIG', status: 'ACTIVE', voucherCode: false },
  { networks: 'VODAFONE', uniqueKey: 'VODAFONE', status: 'ACTIVE', voucherCode: true },
];
