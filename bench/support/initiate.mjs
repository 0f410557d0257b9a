// The request every benchmark sends: the README's account initiate
// (POST /payments/initiates, paymentType ACCOUNT) of one test merchant, with
// a paymentReference unique per request, after exchanging the merchant's key
// for a bearer token (as bench/initiate.mjs does).
import { request } from './http.mjs';

export const MERCHANT = { publicKey: 'SBTESTPUBK_benchmark0001', secretKey: 'SBTESTSECK_benchmark0001' };

/** The initiate body but its paymentReference. */
export const INITIATE = {
  publicKey: MERCHANT.publicKey, paymentType: 'ACCOUNT', amount: '150.00',
  currency: 'NGN', country: 'NG', accountNumber: '0123456789', bankCode: '058',
};

/** The initiate body with this paymentReference, the fields in the README's order. */
export function initiateBody(paymentReference) {
  const { publicKey, paymentType, ...rest } = INITIATE;
  return { publicKey, paymentType, paymentReference, ...rest };
}

/** A card initiate with the declining test card (README, "Test values"): the payment fails at once, which makes one `transaction` notification. */
export function declinedCardBody(paymentReference) {
  return {
    publicKey: MERCHANT.publicKey, paymentType: 'CARD', paymentReference, amount: '1500.00', currency: 'NGN', country: 'NG',
    cardNumber: '4000000000000002', cvv: '123', expiryMonth: '09', expiryYear: '30',
  };
}

/** Exchanges the merchant's key at `${apiBase}/encrypt/keys` for a bearer token. */
export async function exchangeKey(apiBase) {
  const { status, text } = await request(`${apiBase}/encrypt/keys`, { method: 'POST', body: { key: `${MERCHANT.secretKey}.${MERCHANT.publicKey}` } });
  const token = status === 200 ? JSON.parse(text).data?.EncryptedSecKey?.encryptedKey : undefined;
  if (typeof token !== 'string') throw new Error(`POST ${apiBase}/encrypt/keys answered ${status}: ${text.slice(0, 300)}`);
  return token;
}

/** Sends one initiate and returns its status and body: to check a server answers the request before loading it. */
export function initiateOnce(url, token, paymentReference) {
  return request(url, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: initiateBody(paymentReference) });
}
