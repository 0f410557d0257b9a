import { maskStoredCard } from '../redaction/card-numbers.js';
import type { Order, Payment } from '../model/records.js';
import { html, type Html } from './html.js';

/**
 * The customer pages: hosted checkout and card authentication. Plain HTML
 * forms that work without script, by keyboard, on a phone; every value from a
 * request is escaped by `html`.
 */

/** A whole page around `body`. */
export function layout(title: string, body: Html): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="icon" href="/pages/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/pages/assets/style.css">
</head>
<body>
<header class="bar"><span class="brand">Sandbox Pay</span><span class="badge">TEST MODE</span></header>
<main>
${body}
</main>
</body>
</html>`.text;
}

const money = (payment: Pick<Payment, 'amount' | 'currency'>) => `${payment.currency} ${payment.amount}`;

function summary(payment: Payment, order?: Order): Html {
  return html`<section aria-labelledby="summary-title" class="card">
  <h1 id="summary-title">Pay <span class="amount">${money(payment)}</span></h1>
  <dl class="facts">
    <dt>Merchant</dt><dd>${payment.publicKey}</dd>
    <dt>Reference</dt><dd>${payment.paymentReference}</dd>
    ${payment.productDescription ? html`<dt>Description</dt><dd class="description">${payment.productDescription}</dd>` : ''}
  </dl>
  ${order && order.items.length > 0
    ? html`<table class="items">
    <caption>Order items</caption>
    <colgroup><col class="item"><col class="what"><col class="sum"></colgroup>
    <thead><tr><th scope="col">Item</th><th scope="col">Description</th><th scope="col" class="num">Amount</th></tr></thead>
    <tbody>${order.items.map((item) => html`<tr><td>${item.orderId}</td><td>${item.productDescription}</td><td class="num">${item.currency} ${item.amount}</td></tr>`)}</tbody>
  </table>`
    : ''}
</section>`;
}

/** The hosted checkout page of a pending payment: the ways to pay, or the step the customer is at. */
export function checkoutPage(payment: Payment, order: Order | undefined, action: string, error?: string): string {
  const alert = error ? html`<p class="error" role="alert">${error}</p>` : '';
  const cancel = html`<form method="post" action="${action}" class="cancel"><input type="hidden" name="action" value="cancel"><button type="submit" class="secondary">Cancel payment</button></form>`;
  let step: Html;
  if (payment.channel === 'ACCOUNT') {
    step = html`<section class="card" aria-labelledby="otp-title">
  <h2 id="otp-title">Enter the OTP</h2>
  <p>Your bank sent a one-time password. In the sandbox, <strong>123456</strong> approves the payment; any other fails it.</p>
  <form method="post" action="${action}">
    <input type="hidden" name="action" value="otp">
    <label for="otp">One-time password</label>
    <input id="otp" name="otp" inputmode="numeric" autocomplete="one-time-code" required>
    <button type="submit">Confirm payment</button>
  </form>
</section>${cancel}`;
  } else if (payment.channel === 'TRANSFER' && payment.transfer) {
    step = html`<section class="card" aria-labelledby="transfer-title">
  <h2 id="transfer-title">Pay by bank transfer</h2>
  <p>Transfer exactly <strong>${money(payment)}</strong> to:</p>
  <dl class="facts">
    <dt>Bank</dt><dd>${payment.transfer.bankName}</dd>
    <dt>Account number</dt><dd class="account-number">${payment.transfer.accountNumber}</dd>
    <dt>Account name</dt><dd>${payment.transfer.walletName}</dd>
  </dl>
  <form method="post" action="${action}">
    <input type="hidden" name="action" value="transfer-sent">
    <button type="submit">I have sent the transfer</button>
  </form>
</section>${cancel}`;
  } else {
    step = html`<section class="card" aria-labelledby="card-title">
  <h2 id="card-title">Pay by card</h2>
  <p class="hint">Test cards: 5123450000000008 succeeds after authentication, 4000000000000002 is declined, 4000000000000119 stays pending.</p>
  <form method="post" action="${action}" class="grid">
    <input type="hidden" name="action" value="card">
    <label for="cardNumber">Card number</label>
    <input id="cardNumber" name="cardNumber" inputmode="numeric" autocomplete="cc-number" pattern="[0-9 ]{12,23}" required>
    <label for="expiry">Expiry (MM/YY)</label>
    <input id="expiry" name="expiry" autocomplete="cc-exp" pattern="(0[1-9]|1[0-2])/[0-9]{2}" placeholder="09/30" required>
    <label for="cvv">CVV</label>
    <input id="cvv" name="cvv" inputmode="numeric" autocomplete="cc-csc" pattern="[0-9]{3,4}" required>
    <button type="submit">Pay ${money(payment)}</button>
  </form>
</section>
<section class="card" aria-labelledby="account-title">
  <h2 id="account-title">Pay from a bank account</h2>
  <form method="post" action="${action}" class="grid">
    <input type="hidden" name="action" value="account">
    <label for="accountNumber">Account number</label>
    <input id="accountNumber" name="accountNumber" inputmode="numeric" pattern="[0-9]{10}" required>
    <label for="bankCode">Bank code</label>
    <input id="bankCode" name="bankCode" inputmode="numeric" pattern="[0-9]{3,6}" required>
    <button type="submit">Continue</button>
  </form>
</section>
<section class="card" aria-labelledby="bank-title">
  <h2 id="bank-title">Pay by bank transfer</h2>
  <form method="post" action="${action}">
    <input type="hidden" name="action" value="transfer">
    <button type="submit">Show the account to pay into</button>
  </form>
</section>${cancel}`;
  }
  return layout(`Pay ${money(payment)}`, html`${summary(payment, order)}${alert}${step}`);
}

/** The card authentication page of a pending card payment. */
export function authenticatePage(payment: Payment, action: string, error?: string): string {
  const card = payment.card ? maskStoredCard(payment.card) : '';
  return layout(
    'Authenticate your card',
    html`<section class="card" aria-labelledby="auth-title">
  <h1 id="auth-title">Authenticate your card</h1>
  <dl class="facts">
    <dt>Merchant</dt><dd>${payment.publicKey}</dd>
    <dt>Amount</dt><dd class="amount">${money(payment)}</dd>
    <dt>Reference</dt><dd>${payment.paymentReference}</dd>
    ${card ? html`<dt>Card</dt><dd>${card}</dd>` : ''}
  </dl>
  ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
  <p>In the sandbox, the one-time password <strong>123456</strong> approves the payment.</p>
  <form method="post" action="${action}" class="grid">
    <label for="otp">One-time password</label>
    <input id="otp" name="otp" inputmode="numeric" autocomplete="one-time-code">
    <button type="submit" name="action" value="approve">Approve</button>
    <button type="submit" name="action" value="decline" class="secondary" formnovalidate>Decline</button>
  </form>
</section>`,
  );
}

/**
 * The page shown when a payment is settled and the customer is not sent back
 * to the merchant at once.
 * @param returnUrl    a link back to the merchant, with the outcome
 * @param unusableUrl  the merchant's return URL when it is not an absolute http(s) URL: shown, never followed
 */
export function resultPage(payment: Payment, returnUrl?: string, unusableUrl?: string): string {
  return layout(
    `Payment ${payment.status.toLowerCase()}`,
    html`<section class="card" aria-labelledby="result-title">
  <h1 id="result-title">Payment ${payment.status.toLowerCase()}</h1>
  <dl class="facts">
    <dt>Reference</dt><dd>${payment.paymentReference}</dd>
    <dt>Amount</dt><dd>${money(payment)}</dd>
    <dt>Result</dt><dd><span class="code">${payment.code}</span> ${payment.message}</dd>
  </dl>
  ${returnUrl ? html`<p><a href="${returnUrl}">Return to the merchant</a></p>` : ''}
  ${unusableUrl ? html`<p class="notice" role="note">The merchant's return address <code>${unusableUrl}</code> is not an absolute http(s) URL, so the sandbox does not send you there.</p>` : ''}
</section>`,
  );
}

/** A page for a link that names no payment. */
export function notFoundPage(what: string): string {
  return layout('Not found', html`<section class="card"><h1>Not found</h1><p>${what}</p></section>`);
}
