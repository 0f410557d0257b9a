import { fileURLToPath } from 'node:url';
import express, { type Request, type Response, type Router } from 'express';
import {
  cancelByCustomer, completeCardAuthentication, payByAccount, payByCard, payByTransfer, returnUrlOf, returnWithOutcome, transferSent,
  type CustomerContext, type CustomerStep,
} from '../domain/customer.js';
import { putWrites } from '../domain/commit.js';
import type { Payment } from '../model/records.js';
import { isRedirectTarget } from '../model/redirect-targets.js';
import { authenticatePage, checkoutPage, notFoundPage, resultPage } from './templates.js';

/** The pages' static files (style sheet, dashboard): src/pages/assets, found from src/ and from dist/ alike. */
export const ASSETS = fileURLToPath(new URL('../../src/pages/assets/', import.meta.url));

// Everything is served by the sandbox itself: no asset, font or script from elsewhere.
const CONTENT_SECURITY_POLICY = "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/**
 * The customer pages under `/pages` (README, "Pages"): the hosted checkout
 * behind `redirectLink`, the card authentication behind `redirectUrl`, and
 * their static assets. A settled payment sends the customer back to the
 * merchant's URL with the outcome in the query string.
 */
export function pagesRouter(ctx: CustomerContext): Router {
  const router = express.Router();
  router.use((_req, res, next) => {
    res.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    // On a shared store the payment behind a link may have been made by another replica a moment ago.
    ctx.store.refresh().then(() => next(), next);
  });
  router.use('/assets', express.static(ASSETS, { fallthrough: false, index: false }));
  router.use(express.urlencoded({ extended: false, limit: '20kb' }));

  const find = (req: Request, res: Response, accept: (payment: Payment) => boolean): Payment | undefined => {
    const payment = ctx.store.paymentWithLinkingReference(String(req.params.linkingReference));
    if (payment && accept(payment)) return payment;
    res.status(404).type('html').send(notFoundPage('This payment link does not name a payment of the sandbox.'));
    return undefined;
  };
  const isCheckout = (payment: Payment) => payment.method === 'CHECKOUT' || payment.method === 'ORDER';
  const isCard = (payment: Payment) => payment.method === 'CARD' || (isCheckout(payment) && payment.channel === 'CARD');
  // The customer's step is taken in one unit, from the payment as stored then: on a shared store another replica may have changed it.
  const finish = async (res: Response, seen: Payment, take: (payment: Payment) => CustomerStep, self: string) => {
    const step = await ctx.store.transaction(() => {
      const taken = take(ctx.store.paymentWithLinkingReference(seen.linkingReference) ?? seen);
      putWrites(ctx.store, taken.writes, ctx.outbox);
      return taken;
    });
    if (step.next === 'authenticate') return res.redirect(303, `/pages/authenticate/${encodeURIComponent(step.payment.linkingReference)}`);
    // The next step of the checkout, or the page as it now stands (a refused step).
    if (step.next !== 'return') return res.redirect(303, self);
    const back = returnUrlOf(step.payment);
    if (back && isRedirectTarget(back)) return res.redirect(303, returnWithOutcome(back, step.payment));
    res.type('html').send(resultPage(step.payment, undefined, back));
  };

  router.get('/checkout/:linkingReference', (req, res) => {
    const payment = find(req, res, isCheckout);
    if (!payment) return;
    if (payment.status !== 'PENDING') return res.type('html').send(settled(payment));
    if (payment.channel === 'CARD') return res.redirect(303, `/pages/authenticate/${encodeURIComponent(payment.linkingReference)}`);
    res.type('html').send(checkoutPage(payment, ctx.store.order(payment.publicKey, payment.paymentReference), req.originalUrl));
  });

  router.post('/checkout/:linkingReference', async (req, res) => {
    const payment = find(req, res, isCheckout);
    if (!payment) return;
    // A payment no longer pending is refused by the state machine: the customer is sent back to see where it stands.
    const self = req.originalUrl;
    const form = req.body as Record<string, string | undefined>;
    const order = ctx.store.order(payment.publicKey, payment.paymentReference);
    const refuse = (why: string) => res.status(400).type('html').send(checkoutPage(payment, order, self, why));
    switch (form.action) {
      case 'card': {
        const cardNumber = (form.cardNumber ?? '').replace(/\s+/g, '');
        if (!/^[0-9]{12,19}$/.test(cardNumber)) return refuse('The card number must be 12 to 19 digits.');
        if (!/^(0[1-9]|1[0-2])\/[0-9]{2}$/.test(form.expiry ?? '')) return refuse('The expiry date must be MM/YY.');
        if (!/^[0-9]{3,4}$/.test(form.cvv ?? '')) return refuse('The CVV must be 3 or 4 digits.');
        return finish(res, payment, (current) => payByCard(ctx, current, cardNumber), self);
      }
      case 'account':
        if (!/^[0-9]{10}$/.test(form.accountNumber ?? '') || !/^[0-9]{3,6}$/.test(form.bankCode ?? '')) {
          return refuse('The account number must be 10 digits and the bank code 3 to 6 digits.');
        }
        return finish(res, payment, (current) => payByAccount(ctx, current), self);
      case 'otp':
        if (payment.channel !== 'ACCOUNT' || !form.otp) return refuse('Enter the one-time password.');
        return finish(res, payment, (current) => completeCardAuthentication(ctx, current, { approve: true, otp: form.otp! }), self);
      case 'transfer':
        return finish(res, payment, (current) => payByTransfer(ctx, current), self);
      case 'transfer-sent':
        if (payment.channel !== 'TRANSFER') return refuse('Choose bank transfer first.');
        return finish(res, payment, (current) => transferSent(ctx, current), self);
      case 'cancel':
        return finish(res, payment, (current) => cancelByCustomer(ctx, current), self);
      default:
        return refuse('Choose a way to pay.');
    }
  });

  router.get('/authenticate/:linkingReference', (req, res) => {
    const payment = find(req, res, isCard);
    if (!payment) return;
    if (payment.status !== 'PENDING') return res.type('html').send(settled(payment));
    res.type('html').send(authenticatePage(payment, req.originalUrl));
  });

  router.post('/authenticate/:linkingReference', async (req, res) => {
    const payment = find(req, res, isCard);
    if (!payment) return;
    const form = req.body as Record<string, string | undefined>;
    if (form.action === 'decline') return finish(res, payment, (current) => completeCardAuthentication(ctx, current, { approve: false }), req.originalUrl);
    if (!form.otp) return res.status(400).type('html').send(authenticatePage(payment, req.originalUrl, 'Enter the one-time password, or decline.'));
    return finish(res, payment, (current) => completeCardAuthentication(ctx, current, { approve: true, otp: form.otp! }), req.originalUrl);
  });

  return router;
}

function settled(payment: Payment): string {
  const back = returnUrlOf(payment);
  return back && isRedirectTarget(back) ? resultPage(payment, returnWithOutcome(back, payment)) : resultPage(payment, undefined, back);
}
