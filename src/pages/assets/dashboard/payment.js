// A payment's story (GET /__sandbox/payments/{paymentReference}/story): one
// timeline of the requests that touched it, its state changes with the rule
// that decided each, its notifications with every attempt, and what is still
// due; with the actions its state allows.
import {
  button, call, cell, copyButton, disclosure, facts, field, guarded, h, input, inTime, json, keyCell, link, merchantHref, nav, query, segment,
  shortValue, table, when,
} from './ui.js';

/** The view's name, its `data-view`. */
export const NAME = 'payment';
/** The page's title. */
export const title = (params) => `Payment ${params.paymentReference}`;

const KINDS = { settlement: 'settlement', expiry: 'expiry', charge: 'subscription charge', delivery: 'delivery attempt' };
// The requests of a story whose bodies are open: a live refresh keeps them open.
const openEntries = new Set();

/** Draws the view into `main`; `load()` reads and draws its data. */
export function mount({ main, params, refresh }) {
  const { publicKey, paymentReference } = params;
  const heading = h('h1', {}, 'Payment ', shortValue('paymentReference', paymentReference, { max: 40, breaks: true }));
  const summary = h('section', { className: 'card', id: 'summary', attrs: { 'aria-labelledby': 'summary-title' } });
  const actions = h('section', { className: 'card', id: 'actions', attrs: { 'aria-labelledby': 'actions-title' } });
  const timeline = h('section', { className: 'card', id: 'story', attrs: { 'aria-labelledby': 'story-title' } });
  main.append(h('p', {}, link(merchantHref(publicKey), '← the merchant\'s payments')), heading, h('div', { className: 'columns' }, summary, actions), timeline);

  async function load() {
    const story = await readStory(publicKey, paymentReference);
    if (!story) {
      summary.replaceChildren(h('h2', { id: 'summary-title' }, 'No such payment'), h('p', {}, `The merchant ${publicKey} has no payment ${paymentReference}.`));
      actions.replaceChildren(h('h2', { id: 'actions-title' }, 'Actions'), h('p', { className: 'hint' }, 'None.'));
      timeline.replaceChildren(h('h2', { id: 'story-title' }, 'Story'));
      return;
    }
    const p = story.payment;
    main.dataset.status = p.status;
    summary.replaceChildren(h('h2', { id: 'summary-title' }, 'Where it stands'), facts([
      ['Status', h('span', { className: `status-${p.status}`, dataset: { status: p.status } }, p.status)],
      ['Result', `${p.code} ${p.message}`],
      ['Method', p.method],
      ['Amount', `${p.currency} ${p.amount}`],
      ['Captured', p.capturedAmount !== undefined ? `${p.currency} ${p.capturedAmount}` : ''],
      ['Refunded', p.refundedAmount && Number(p.refundedAmount) > 0 ? `${p.currency} ${p.refundedAmount}` : ''],
      ['Subscription', subscriptionOf(p)],
      ['Recurring', p.recurring ? (p.recurring.kind === 'scheduled' ? `charge ${p.recurring.cycle} of ${p.recurring.billingId}` : `debit of ${p.recurring.billingId}`) : ''],
      ['Scenario', p.scenario],
      ['linkingReference', shortValue('linkingReference', p.linkingReference, { max: 30, breaks: true })],
      ['Merchant', shortValue('publicKey', p.publicKey, { href: merchantHref(p.publicKey), max: 30, breaks: true })],
      ['Created', `${when(p.createdAt)} UTC`],
      ['Updated', `${when(p.updatedAt)} UTC`],
    ]));
    // Drawn again only when what they depend on changed: an event must not wipe an amount being typed.
    const actionsKey = JSON.stringify([p.status, p.refundedAmount, p.capturedAmount, story.due.filter((item) => item.kind === 'settlement')]);
    if (actions.dataset.key !== actionsKey) {
      actions.dataset.key = actionsKey;
      actions.replaceChildren(h('h2', { id: 'actions-title' }, 'Actions'), ...actionsFor(story, refresh));
    }
    timeline.replaceChildren(h('h2', { id: 'story-title' }, 'Story'), ...storyOf(story, refresh));
  }

  return { load, touches: (event) => event.publicKey === publicKey && (!event.paymentReference || event.paymentReference === paymentReference) };
}

// Where a subscription stands: its next charge, or paused, and how many charges were made.
function subscriptionOf(p) {
  const s = p.subscription;
  if (!s) return '';
  const charged = `${s.charges} charged`;
  return s.status === 'ACTIVE' && s.nextChargeAt ? `${s.billingCycle.toLowerCase()} ${p.currency} ${s.amount}, next charge ${when(s.nextChargeAt)} UTC (${charged})` : `subscription ${s.status.toLowerCase()} (${charged})`;
}

/** The story (GET /payments/{paymentReference}/story); `undefined` when the merchant has no such payment. */
async function readStory(publicKey, paymentReference) {
  try {
    return await call('GET', `/payments/${segment(paymentReference)}/story${query({ publicKey })}`);
  } catch (error) {
    if (error.status === 404) return undefined;
    throw error;
  }
}

function actionsFor(story, refresh) {
  const p = story.payment;
  const by = { publicKey: p.publicKey };
  const path = (what) => `/payments/${segment(p.paymentReference)}/${what}`;
  const done = async (said) => { nav.notice(`${p.paymentReference} ${said}.`); await refresh(); };
  const out = [];
  const row = h('div', { className: 'actions' });
  if (p.status === 'PENDING') {
    row.append(
      button('Complete (success)', () => guarded(async () => { await call('POST', '/payments/complete', { paymentReference: p.paymentReference, outcome: 'success', ...by }); await done('succeeded'); }), 'small'),
      button('Fail', () => guarded(async () => { await call('POST', '/payments/complete', { paymentReference: p.paymentReference, outcome: 'failure', ...by }); await done('failed'); }), 'small danger'),
    );
    const settlement = story.due.find((item) => item.kind === 'settlement');
    if (settlement) {
      row.append(button(`Settle now (advance the clock to ${when(settlement.at)})`, () => guarded(async () => {
        await call('POST', `/clock/${segment(p.publicKey)}/advance`, { to: settlement.at });
        await done('settled as its clock reached the settlement');
      })));
    }
  }
  if (['PENDING', 'AUTHORIZED'].includes(p.status)) {
    row.append(button('Cancel', () => guarded(async () => { const r = await call('POST', path('cancel'), by); await done(`cancel: ${r.code} ${r.message}`); }), 'small danger'));
  }
  out.push(row);
  if (['AUTHORIZED', 'PARTIALLY_CAPTURED'].includes(p.status)) out.push(amountForm('Capture', 'capture', p, refresh));
  if (['SUCCESSFUL', 'CAPTURED', 'PARTIALLY_CAPTURED', 'REFUNDED'].includes(p.status) && Number(p.refundedAmount ?? 0) < Number(p.capturedAmount ?? p.amount)) {
    out.push(amountForm('Refund', 'refund', p, refresh));
  }
  const notify = h('div', { className: 'actions' },
    button('Send transaction notification', () => trigger(p, 'transaction', refresh)));
  if (Number(p.refundedAmount ?? 0) > 0) notify.append(button('Send refund notification', () => trigger(p, 'refund', refresh)));
  out.push(h('h3', {}, 'Notifications'), notify);
  return out;
}

// A refund or capture: the amount (empty: all that remains), answered with the operation's result code.
function amountForm(label, what, p, refresh) {
  const amount = input('amount', '', { inputmode: 'decimal', maxlength: '20', placeholder: 'all that remains', pattern: '[0-9]+(\\.[0-9]{1,2})?' });
  const form = h('form', { className: 'row', dataset: { action: what } }, field(`${label} amount (${p.currency})`, amount), h('button', { type: 'submit', className: what === 'refund' ? 'danger' : undefined }, label));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    guarded(async () => {
      const body = { publicKey: p.publicKey };
      if (amount.value.trim()) body.amount = amount.value.trim();
      const answer = await call('POST', `/payments/${segment(p.paymentReference)}/${what}`, body);
      nav.notice(`${label} of ${p.paymentReference}: ${answer.code} ${answer.message}.`);
      await refresh();
    });
  });
  return form;
}

async function trigger(p, eventType, refresh) {
  await guarded(async () => {
    const { deliveries } = await call('POST', `/webhooks/${segment(p.publicKey)}/trigger`, { eventType, paymentReference: p.paymentReference });
    nav.notice(`Sending the ${eventType} event of ${p.paymentReference}: ${deliveries.length} ${deliveries.length === 1 ? 'delivery' : 'deliveries'} made.`);
    await refresh();
  });
}

/** The timeline's entries, oldest first: requests, state changes and deliveries; then what is still due. */
function storyOf(story, refresh) {
  const entries = [
    ...story.requests.map((r, index) => ({ at: r.at, order: 0, index, item: requestEntry(r) })),
    ...story.states.map((s, index) => ({ at: s.at, order: 1, index, item: stateEntry(s) })),
    ...story.deliveries.map((d, index) => ({ at: d.createdAt, order: 2, index, item: deliveryEntry(d, refresh) })),
  ].sort((a, b) => a.at.localeCompare(b.at) || a.order - b.order || a.index - b.index);
  const out = [];
  out.push(h('ul', { className: 'chips', attrs: { 'aria-label': 'In this story' } },
    h('li', {}, `${story.requests.length} ${story.requests.length === 1 ? 'request' : 'requests'}`),
    h('li', {}, `${story.states.length} state ${story.states.length === 1 ? 'change' : 'changes'}`),
    h('li', {}, `${story.deliveries.length} ${story.deliveries.length === 1 ? 'notification' : 'notifications'}`),
    h('li', {}, `${story.due.length} still due`)));
  if (!story.requestsComplete) out.push(h('p', { className: 'hint' }, 'The journal may not hold every request of this payment: its bounds, a clear, a restart or a moved clock leave it unsure.'));
  out.push(h('ol', { className: 'timeline', id: 'timeline' }, entries.map((entry) => entry.item)));
  out.push(h('h3', {}, 'Still due'));
  out.push(story.due.length === 0 ? h('p', { className: 'hint', id: 'due' }, 'Nothing is due for this payment.') : table('On the merchant\'s clock, earliest first', ['Due at', 'What', 'Delivery'],
    story.due.map((item) => h('tr', {}, cell(`${when(item.at)} UTC`, { oneLine: true }), cell(KINDS[item.kind] ?? item.kind, { oneLine: true }), keyCell('delivery', item.deliveryId))), { id: 'due' }));
  return out;
}

function entryHead(what, at, ...rest) {
  return h('div', { className: 'entry-head' }, h('span', { className: 'what' }, what), h('span', { className: 'muted' }, `${when(at)} UTC`), ...rest);
}

function requestEntry(r) {
  const status = r.status === 0 ? `no answer (${r.fault ?? 'fault'})` : String(r.status);
  const body = h('div', { className: 'panes' },
    h('div', {}, h('p', { className: 'pane-title' }, 'Request (masked as the journal keeps it)'), json(r.request)),
    h('div', {}, h('p', { className: 'pane-title' }, 'Response'), r.response ? json(r.response) : h('p', { className: 'hint' }, 'No answer was sent.')));
  const details = disclosure('Request and response', body, openEntries.has(r.id));
  details.addEventListener('toggle', () => { if (details.open) openEntries.add(r.id); else openEntries.delete(r.id); });
  return h('li', { className: 'kind-request', dataset: { kind: 'request', path: r.path } },
    entryHead(`${r.method} ${r.path}`, r.at,
      h('span', { className: r.status >= 400 || r.status === 0 ? 'bad' : undefined }, status),
      r.code ? h('span', {}, `code ${r.code}`) : undefined,
      r.scenario ? h('span', {}, `scenario ${r.scenario}`) : undefined,
      curlButton(r)),
    r.reason ? h('p', { className: 'hint' }, r.reason) : undefined,
    r.warnings?.length ? h('ul', { className: 'warnings' }, r.warnings.map((w) => h('li', {}, w))) : undefined,
    details);
}

// The copy button's name says what it copies: "Copy as curl: request 12".
function curlButton(r) {
  const b = copyButton('', curlOf(r));
  b.setAttribute('aria-label', `Copy as curl: request ${r.id}`);
  b.textContent = 'copy as curl';
  return b;
}

/** The request as a curl command, its masked values left as the journal keeps them (a token must be put back by hand). */
function curlOf(r) {
  const quote = (text) => `'${String(text).replace(/'/g, "'\\''")}'`;
  const search = r.request?.query ? `?${new URLSearchParams(Object.entries(r.request.query).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x]) : [[k, v]])))}` : '';
  const parts = [`curl -X ${r.method} ${quote(`${location.origin}/api/v2${r.path}${search}`)}`];
  for (const [name, value] of Object.entries(r.request?.headers ?? {})) {
    if (['host', 'content-length', 'connection', 'accept-encoding', 'user-agent'].includes(name)) continue;
    // The journal keeps no credential: the command names where the tester's own goes.
    const said = name === 'authorization' ? 'Bearer $SANDBOX_TOKEN' : Array.isArray(value) ? value.join(', ') : value;
    parts.push(`-H ${quote(`${name}: ${said}`)}`);
  }
  if (r.request?.body !== undefined) parts.push(`--data ${quote(JSON.stringify(r.request.body))}`);
  return parts.join(' \\\n  ');
}

function stateEntry(s) {
  return h('li', { className: 'kind-state', dataset: { kind: 'state', status: s.status } },
    entryHead(s.status, s.at, h('span', {}, `code ${s.code}`), h('span', {}, `by ${s.event}`), h('span', {}, `scenario ${s.scenario}`)),
    s.message ? h('p', { className: 'hint' }, s.message) : undefined);
}

function deliveryEntry(d, refresh) {
  const now = Date.now();
  const attempts = table('Attempts', ['Time', 'Status', 'Latency#', 'Answer', 'Sent to'],
    d.attempts.map((a, index) => h('tr', { dataset: { attempt: String(index + 1) } },
      cell(`${when(a.at)} UTC`, { oneLine: true }),
      cell(a.status === undefined ? 'no answer' : String(a.status), { oneLine: true, className: a.acknowledged ? 'state-delivered' : 'bad' }),
      cell(`${Math.round(a.latencyMs)} ms`, { oneLine: true, className: 'num' }),
      cell(a.acknowledged ? 'acknowledged' : `retried: ${a.reason ?? 'not acknowledged'}`, { className: 'text' }),
      cell(a.url, { className: 'text' }))),
    { className: 'attempts', empty: d.state === 'scheduled' ? 'No attempt yet.' : `No attempt: ${d.state}.` });
  const next = d.state === 'scheduled' && d.dueAt ? `next try ${when(d.dueAt)} UTC (${inTime(Date.parse(d.dueAt) - now)} in real time)` : '';
  return h('li', { className: 'kind-delivery', dataset: { kind: 'delivery', delivery: d.id, state: d.state } },
    entryHead(`${d.event.eventType} notification`, d.createdAt, h('span', { className: `state-${d.state}` }, d.state), h('span', {}, `${d.attempts.length} ${d.attempts.length === 1 ? 'attempt' : 'attempts'}`),
      d.fault ? h('span', { className: 'warnings' }, `fault ${d.fault.kind}`) : undefined, next ? h('span', {}, next) : undefined,
      button('Redeliver', () => guarded(async () => {
        const copy = await call('POST', `/webhooks/deliveries/${segment(d.id)}/redeliver`);
        nav.notice(`Redelivering the ${d.event.eventType} event of ${d.paymentReference} (${copy.id}).`);
        await refresh();
      }), 'small secondary', { 'aria-label': `Redeliver ${d.event.eventType} notification ${d.id}` })),
    attempts,
    disclosure('Event as sent', json(d.event)));
}
