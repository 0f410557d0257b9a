// A merchant's go-live report (GET /__sandbox/go-live/{publicKey};
// docs/decisions.md#d87-go-live-report): the verdict, each check with what it
// found and links to where a person can look, and a run that tests the
// merchant's notification receiver (go-live-run.js).
import {
  BASE, call, cell, facts, h, link, merchantHref, paymentHref, query, segment, shortValue, table, when,
} from './ui.js';
import { runCard } from './go-live-run.js';

/** The view's name, its `data-view`. */
export const NAME = 'go-live';
/** The page's title. */
export const title = (params) => `Go-live report of ${params.publicKey}`;

// What each verdict and status says in words: the colour only repeats it.
const VERDICTS = {
  ready: ['Ready', 'Every required check passed.'],
  'not-ready': ['Not ready', 'A required check failed: fix what it found, then exercise it again.'],
  incomplete: ['Incomplete', 'No required check failed, but the traffic has not exercised them all yet.'],
};
const STATUSES = { pass: 'pass', fail: 'fail', warn: 'warning', 'not-exercised': 'not exercised' };

/** Draws the view into `main`; `load()` reads and draws its data. */
export function mount({ main, params, refresh }) {
  const { publicKey } = params;
  const verdict = h('section', { className: 'card', id: 'verdict', attrs: { 'aria-labelledby': 'verdict-title' } });
  const checks = h('section', { className: 'card', id: 'checks', attrs: { 'aria-labelledby': 'checks-title' } }, h('h2', { id: 'checks-title' }, 'Checks'));
  // The run's card is drawn once: a refresh of the report must not wipe a run being followed.
  const run = runCard(publicKey, refresh);
  main.append(
    h('p', {}, link(merchantHref(publicKey), '← the merchant\'s payments')),
    h('h1', {}, 'Go-live report of ', shortValue('publicKey', publicKey, { max: 40, breaks: true })),
    h('div', { className: 'columns' }, verdict, run.element),
    checks,
  );

  async function load() {
    const [report, webhook] = await Promise.all([readReport(publicKey), readWebhook(publicKey)]);
    if (!report) {
      delete main.dataset.verdict;
      verdict.replaceChildren(h('h2', { id: 'verdict-title' }, 'No such merchant'),
        h('p', {}, `${publicKey} is no merchant of this sandbox: exchange its keys first (POST /api/v2/encrypt/keys), or load it with a snapshot or fixtures.`));
      checks.replaceChildren(h('h2', { id: 'checks-title' }, 'Checks'), h('p', { className: 'hint' }, 'None.'));
      run.show(undefined);
      return;
    }
    main.dataset.verdict = report.verdict;
    const [said, meaning] = VERDICTS[report.verdict] ?? [report.verdict, ''];
    const counts = Object.entries(STATUSES).map(([status, words]) => [report.checks.filter((c) => c.status === status).length, words]).filter(([n]) => n > 0);
    verdict.replaceChildren(
      h('h2', { id: 'verdict-title' }, 'Verdict'),
      h('p', { className: `verdict verdict-${report.verdict}`, dataset: { verdict: report.verdict } }, said),
      h('p', {}, meaning),
      facts([
        ['Checks', counts.map(([n, words]) => `${n} ${words}`).join(', ')],
        ['Traffic since', `${when(report.since)} UTC`],
        ['Judged at', `${when(report.generatedAt)} UTC`],
      ]),
      h('p', { className: 'hint' }, 'Since the merchant\'s last reset, or since the sandbox first saw it. Reset the merchant to start the report over.'));
    checks.replaceChildren(h('h2', { id: 'checks-title' }, 'Checks'), h('ol', { className: 'checks' }, report.checks.map((check) => checkItem(publicKey, check))));
    run.show(webhook);
  }

  return { load, touches: (event) => !event.publicKey || event.publicKey === publicKey };
}

/** The report; `undefined` when the sandbox has no such merchant (404). */
async function readReport(publicKey) {
  try {
    return await call('GET', `/go-live/${segment(publicKey)}`);
  } catch (error) {
    if (error.status === 404) return undefined;
    throw error;
  }
}

/** The merchant's notification settings (GET /webhooks/{publicKey}); `undefined` for no such merchant. */
async function readWebhook(publicKey) {
  try {
    return await call('GET', `/webhooks/${segment(publicKey)}`);
  } catch (error) {
    if (error.status === 404) return undefined;
    throw error;
  }
}

function checkItem(publicKey, check) {
  const id = `check-${check.id}`;
  const status = STATUSES[check.status] ?? check.status;
  const shown = check.evidence.length;
  const caption = check.evidenceTotal ? `What it found: the first ${shown} of ${check.evidenceTotal}` : `What it found: ${shown} ${shown === 1 ? 'item' : 'items'}`;
  return h('li', { className: `check check-${check.status}`, id, dataset: { check: check.id, status: check.status }, attrs: { 'aria-labelledby': `${id}-title` } },
    h('div', { className: 'check-head' },
      h('h3', { id: `${id}-title` }, check.title),
      h('span', { className: `check-status status-${check.status}` }, status),
      h('span', { className: 'muted' }, check.required ? 'required' : 'advisory'),
      h('code', { className: 'muted' }, check.id)),
    h('p', { className: 'check-summary' }, check.summary),
    h('p', { className: 'hint check-advice' }, check.advice),
    shown === 0 ? undefined : evidenceTable(publicKey, caption, check.evidence));
}

// The columns of evidence: what an item may name, each a cell linking where a person can look at it.
const COLUMNS = [
  ['Payment', 'paymentReference', (publicKey, item) => shortValue('paymentReference', item.paymentReference, { href: paymentHref(publicKey, item.paymentReference), max: 28 })],
  // A delivery among its payment's notifications: the Notifications view filtered to them.
  ['Delivery', 'deliveryId', (publicKey, item) => shortValue('deliveryId', item.deliveryId, { href: `${BASE}notifications${query({ publicKey, paymentReference: item.paymentReference })}`, max: 28 })],
  ['eventId', 'eventId', (_publicKey, item) => shortValue('eventId', item.eventId, { max: 20 })],
  ['Request', 'requestId', (publicKey, item) => link(`${BASE}journal${query({ publicKey, paymentReference: item.paymentReference })}`, `request ${item.requestId}`,
    { title: `The journal's request ${item.requestId}, among the merchant's` })],
];

/** A check's evidence as a table, with a column only for what some item names. */
function evidenceTable(publicKey, caption, evidence) {
  const columns = COLUMNS.filter(([, field]) => evidence.some((item) => item[field] !== undefined));
  return table(caption, ['Found', ...columns.map(([name]) => name)], evidence.map((item) => h('tr', { dataset: { delivery: item.deliveryId, reference: item.paymentReference } },
    cell(item.detail, { className: 'text' }),
    columns.map(([, field, shown]) => cell(item[field] === undefined ? '' : shown(publicKey, item), { oneLine: true })))),
  { className: 'evidence' });
}
