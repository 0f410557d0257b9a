// The sandbox dashboard. It reads and changes state through the control API
// under /__sandbox only, and builds every cell with textContent: values that
// came from requests are never parsed as HTML.
const control = '/__sandbox';
const $ = (selector) => document.querySelector(selector);
let scenarios = [];

// The control token (--control-token) lives in this tab's session only, never in a cookie:
// a cookie would be sent by any page that posts to the sandbox.
const TOKEN_KEY = 'payments-sandbox.control-token';
function storedToken() {
  try { return sessionStorage.getItem(TOKEN_KEY) ?? ''; } catch { return ''; }
}

async function call(method, path, body) {
  const headers = {};
  // The control API takes state-changing requests as JSON only.
  if (method !== 'GET') headers['content-type'] = 'application/json';
  const token = storedToken();
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(control + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  const json = text ? JSON.parse(text) : undefined;
  if (response.status === 401) askForToken();
  if (!response.ok) throw new Error(json?.message ?? response.statusText);
  return json;
}

// A value as one segment of a control API path. `.` and `..` cannot be one: every URL parser
// (fetch's included, even written %2E) resolves them away, so calls that may name such a value
// carry it in their body instead (POST /payments/complete).
function segment(value) {
  if (value === '.' || value === '..') throw new Error(`${value} cannot be sent as a path segment`);
  return encodeURIComponent(value);
}

function askForToken() {
  $('#token-section').hidden = false;
  $('#control-token').focus();
}

// A public key is long: its start tells merchants apart, the whole of it is in the tooltip.
function merchantCell(publicKey) {
  const td = cell(publicKey ? `${publicKey.slice(0, 18)}…` : '', 'nowrap');
  if (publicKey) td.title = publicKey;
  return td;
}

// A journal entry's request and response, as the journal keeps them (redacted), opened on demand.
function detailsCell(entry) {
  const td = document.createElement('td');
  const details = document.createElement('details');
  const summary = document.createElement('summary');
  summary.textContent = 'Open';
  const pre = document.createElement('pre');
  pre.textContent = JSON.stringify({ request: entry.request, response: entry.response, reason: entry.reason }, null, 2);
  details.append(summary, pre);
  td.append(details);
  return td;
}

function cell(text, className) {
  const td = document.createElement('td');
  td.textContent = text ?? '';
  if (className) td.className = className;
  return td;
}

function button(label, className, onClick) {
  const b = document.createElement('button');
  b.type = 'button';
  b.className = className;
  b.textContent = label;
  b.addEventListener('click', onClick);
  return b;
}

function fill(table, rows) {
  const body = $(`${table} tbody`);
  body.replaceChildren(...rows);
  if (rows.length === 0) {
    const tr = document.createElement('tr');
    const td = cell('Nothing yet.', 'muted');
    td.colSpan = $(`${table} thead tr`).children.length;
    tr.append(td);
    body.append(tr);
  }
}

const merchant = () => $('#merchant').value;
const query = () => (merchant() ? `?publicKey=${encodeURIComponent(merchant())}` : '');
const notice = (text) => { $('#notice').textContent = text; };

// Payments, orders, the journal, the deliveries and the overrides grow with
// traffic: each is read one page at a time (control-api.yaml, "Paging"),
// never whole. A cursor only leads forward, so each list keeps the cursors
// of the pages before the one shown to go back, and where each began: a
// page may hold fewer rows than asked for when its rows are large.
const PAGE_SIZE = { payments: 50, orders: 50, requests: 25, deliveries: 25, overrides: 25 };
// Where each list is served, below /__sandbox.
const LIST_PATH = { payments: '/payments', orders: '/orders', requests: '/requests', deliveries: '/webhooks/deliveries', overrides: '/overrides' };
// `first` is the position of the page's first row, `shown` how many it holds.
const firstPage = () => ({ before: [], starts: [], cursor: undefined, next: undefined, first: 1, shown: 0 });
const pagers = Object.fromEntries(Object.keys(PAGE_SIZE).map((list) => [list, firstPage()]));

function firstPages() {
  for (const pager of Object.values(pagers)) Object.assign(pager, firstPage());
}

function pagePath(list) {
  const params = new URLSearchParams({ limit: String(PAGE_SIZE[list]) });
  if (merchant()) params.set('publicKey', merchant());
  // The overrides that can answer the merchant's requests: its own and the sandbox-wide ones.
  if (merchant() && list === 'overrides') params.set('withSandboxWide', 'true');
  if (pagers[list].cursor) params.set('cursor', pagers[list].cursor);
  return `${LIST_PATH[list]}?${params}`;
}

// The page the list's cursor names; the first page when that cursor went stale
// (a reset forgot the payment it named), rather than an empty table.
async function readPage(list) {
  const pager = pagers[list];
  let page;
  try {
    page = await call('GET', pagePath(list));
  } catch (error) {
    if (!pager.cursor) throw error;
    Object.assign(pager, firstPage());
    page = await call('GET', pagePath(list));
  }
  pager.next = page.next;
  pager.shown = page[list].length;
  const nav = $(`nav[data-list="${list}"]`);
  const { first, shown } = pager;
  nav.querySelector('[data-position]').textContent = shown === 0 ? '' : `${first}–${first + shown - 1} of ${page.total}`;
  nav.querySelector('[data-go="previous"]').disabled = pager.before.length === 0;
  nav.querySelector('[data-go="next"]').disabled = !pager.next;
  nav.dataset.page = String(pager.before.length + 1);
  return page[list];
}

async function turn(list, direction) {
  const pager = pagers[list];
  if (direction === 'next') {
    if (!pager.next) return;
    pager.before.push(pager.cursor);
    pager.starts.push(pager.first);
    pager.first += pager.shown;
    pager.cursor = pager.next;
  } else {
    if (pager.before.length === 0) return;
    pager.cursor = pager.before.pop();
    pager.first = pager.starts.pop();
  }
  await LOADERS[list]();
}

// The chooser offers a page of merchants, never all of them (a sandbox may
// know tens of thousands); the search field asks the sandbox for those whose
// public key contains what is typed.
const MERCHANT_CHOICES = 50;

async function loadMerchants() {
  const search = $('#merchant-search').value.trim();
  const params = new URLSearchParams({ limit: String(MERCHANT_CHOICES) });
  if (search) params.set('publicKeyContains', search);
  const { merchants, total, next } = await call('GET', `/merchants?${params}`);
  const select = $('#merchant');
  const chosen = select.value;
  let kept = !chosen || merchants.some((m) => m.publicKey === chosen);
  // The merchant shown stays in the chooser while it exists, whatever the search finds.
  if (!kept) kept = (await call('GET', `/merchants?${new URLSearchParams({ limit: String(MERCHANT_CHOICES), publicKeyContains: chosen })}`)).merchants.some((m) => m.publicKey === chosen);
  const options = [new Option('All merchants', '')];
  if (chosen && kept && !merchants.some((m) => m.publicKey === chosen)) options.push(new Option(chosen, chosen));
  options.push(...merchants.map((m) => new Option(m.publicKey, m.publicKey)));
  if (next) {
    const more = new Option(`${total - merchants.length} more: type part of a public key to find one`, '');
    more.disabled = true;
    options.push(more);
  }
  select.replaceChildren(...options);
  select.value = kept ? chosen : '';
  $('#merchant-count').textContent = search ? `${total} found` : `${total} in all`;
}

async function loadScenarios() {
  ({ scenarios } = await call('GET', '/scenarios'));
  $('#scenario').replaceChildren(...scenarios.map((s) => new Option(`${s.name}${s.explicit ? '' : ' (also by value)'}`, s.name)));
  describeScenario();
}

function describeScenario() {
  const s = scenarios.find((candidate) => candidate.name === $('#scenario').value);
  $('#scenario-description').textContent = s ? `${s.description} Applies to: ${s.operations.join(', ')}.` : '';
}

// One refresh at a time: one started for another merchant, or before an
// action, must not finish after a later one and show what it read then.
let refreshing = Promise.resolve();
function refresh() {
  const run = refreshing.then(refreshNow, refreshNow);
  refreshing = run.catch(() => undefined);
  return run;
}

async function refreshNow() {
  await loadMerchants();
  const shown = merchant();
  await Promise.all([loadOverrides(), loadPayments(), loadWebhook(), loadDeliveries(), loadClock(), loadOrders(), loadJournal()]);
  // Lets a reader (or a test) tell which merchant the tables now show: the one this refresh read, even if another was chosen meanwhile.
  document.body.dataset.shown = shown || 'all';
}

async function loadOverrides() {
  const overrides = await readPage('overrides');
  fill('#overrides', overrides.map((o) => {
    const tr = document.createElement('tr');
    const action = document.createElement('td');
    action.append(button('Remove', 'small secondary', () => guarded(async () => { await call('DELETE', `/overrides/${segment(o.id)}`); notice(`Removed the override ${o.scenario ?? ''}.`); await refresh(); })));
    const wire = [o.delay ? ('ms' in o.delay ? `${o.delay.ms} ms` : `${o.delay.minMs}-${o.delay.maxMs} ms`) : '', o.fault ?? ''].filter(Boolean).join(', ');
    tr.append(cell(o.scenario ?? '—'), cell(o.publicKey ?? 'every merchant'), cell(o.times === undefined ? 'until removed' : String(o.times)), cell(wire), action);
    return tr;
  }));
}

// The amount, and beneath it what a pre-authorisation has captured and where a subscription stands: its next charge, or paused.
function amountCell(p) {
  const td = cell(`${p.currency} ${p.amount}`, 'num nowrap');
  const notes = [];
  if (p.capturedAmount !== undefined) notes.push(`captured ${p.currency} ${p.capturedAmount}`);
  const s = p.subscription;
  if (s) {
    const charged = `${s.charges} charged`;
    notes.push(s.status === 'ACTIVE' && s.nextChargeAt ? `${s.billingCycle.toLowerCase()} ${p.currency} ${s.amount}, next charge ${when(s.nextChargeAt)} UTC (${charged})` : `subscription ${s.status.toLowerCase()} (${charged})`);
  }
  if (p.recurring) notes.push(p.recurring.kind === 'scheduled' ? `charge ${p.recurring.cycle} of ${p.recurring.billingId}` : `debit of ${p.recurring.billingId}`);
  for (const note of notes) {
    const line = document.createElement('span');
    line.className = 'muted note';
    line.textContent = note;
    td.append(document.createElement('br'), line);
  }
  return td;
}

async function loadPayments() {
  const payments = await readPage('payments');
  fill('#payments', payments.map((p) => {
    const tr = document.createElement('tr');
    const actions = document.createElement('td');
    if (p.status === 'PENDING') {
      // The body names the payment, so that any reference (`.` and `..` too) arrives as it is, and
      // the merchant: references are unique per merchant only.
      const complete = (outcome, said) => guarded(async () => {
        await call('POST', '/payments/complete', { paymentReference: p.paymentReference, outcome, publicKey: p.publicKey });
        notice(`${p.paymentReference} ${said}.`);
        await refresh();
      });
      actions.append(
        button('Succeed', 'small', () => complete('success', 'succeeded')),
        document.createTextNode(' '),
        button('Fail', 'small danger', () => complete('failure', 'failed')),
      );
    }
    const refunded = p.refundedAmount && Number(p.refundedAmount) > 0 ? `${p.currency} ${p.refundedAmount}` : '';
    // A new event of the payment as it stands (or of all that was refunded of it), sent to its merchant's notification URL now.
    actions.className = 'actions';
    actions.append(button('Send notification', 'small secondary', () => trigger(p, 'transaction')));
    if (refunded) actions.append(button('Send refund notification', 'small secondary', () => trigger(p, 'refund')));
    tr.append(cell(p.paymentReference), merchantCell(p.publicKey), cell(p.method, 'nowrap'), cell(p.status, `status status-${p.status}`), cell(`${p.code} ${p.message}`), amountCell(p), cell(refunded, 'num nowrap refunded'), cell(p.scenario), actions);
    return tr;
  }));
}

async function loadOrders() {
  const orders = await readPage('orders');
  fill('#orders', orders.flatMap((o) => o.items.map((item) => {
    const tr = document.createElement('tr');
    tr.append(cell(o.paymentReference), cell(item.orderId), cell(item.productDescription), cell(`${item.currency} ${item.amount}`, 'num'), cell(item.updatedAt));
    return tr;
  })));
}

async function loadJournal() {
  const requests = await readPage('requests');
  fill('#journal', requests.map((r) => {
    const tr = document.createElement('tr');
    tr.append(cell(r.time.slice(11, 19), 'nowrap'), cell(`${r.method} ${r.path}`, 'nowrap'), cell(r.status === 0 ? `no answer (${r.fault ?? 'fault'})` : String(r.status)), cell(r.scenario), merchantCell(r.publicKey), cell(r.paymentReference), cell((r.warnings ?? []).join('; '), r.warnings ? 'warnings' : undefined), detailsCell(r));
    return tr;
  }));
}

const LOADERS = { payments: loadPayments, orders: loadOrders, requests: loadJournal, deliveries: loadDeliveries, overrides: loadOverrides };

// ---------------------------------------------------------------- notifications and the clock
// The control API's tags Notifications and Clocks (control-api.yaml). Every
// value below may come from a client or a receiver: cells and lists are
// filled with textContent only.

/** An ISO 8601 time as `yyyy-MM-dd HH:mm:ss` (UTC, on the merchant's clock). */
const when = (iso) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 19)}` : '');

/** Milliseconds as a short reading: `now`, `in 30 s`, `in 1 h 5 min`. */
function inTime(ms) {
  if (ms <= 0) return 'now';
  const seconds = Math.round(ms / 1000);
  const parts = [[Math.floor(seconds / 86400), 'd'], [Math.floor(seconds / 3600) % 24, 'h'], [Math.floor(seconds / 60) % 60, 'min'], [seconds % 60, 's']];
  const said = parts.filter(([n]) => n > 0).slice(0, 2).map(([n, unit]) => `${n} ${unit}`);
  return said.length === 0 ? 'now' : `in ${said.join(' ')}`;
}

function facts(pairs) {
  const dl = document.createElement('dl');
  dl.className = 'facts';
  for (const [term, value] of pairs) {
    if (value === undefined || value === '') continue;
    const dt = document.createElement('dt');
    dt.textContent = term;
    const dd = document.createElement('dd');
    dd.textContent = value;
    dl.append(dt, dd);
  }
  return dl;
}

const SOURCES = { merchant: 'merchant: its own URL', default: "default: the sandbox's --webhook-url", none: 'none: its notifications go nowhere' };
// The merchant whose URL the form was last filled with: the form is filled again only when another is shown.
let webhookFormOf;

async function loadWebhook() {
  const shown = merchant();
  $('#webhook').hidden = !shown;
  $('#webhook-none').hidden = Boolean(shown);
  if (!shown) return;
  const view = await call('GET', `/webhooks/${segment(shown)}`);
  // Another merchant was chosen meanwhile: its own load fills the view, not this stale answer.
  if (merchant() !== shown) return;
  $('#webhook-url').textContent = view.url ?? 'nowhere: no notification URL';
  $('#webhook-source').textContent = SOURCES[view.source] ?? view.source;
  $('#webhook-schedule').textContent = view.schedule;
  $('#webhook-events').textContent = view.events ? view.events.join(', ') : 'all';
  $('#webhook-faults').textContent = view.faults.length === 0 ? 'none' : view.faults.map((f) => `${f.kind} (${f.times === undefined ? 'until removed' : `next ${f.times}`})`).join(', ');
  if (webhookFormOf !== shown) {
    webhookFormOf = shown;
    $('#webhook-url-input').value = view.source === 'merchant' ? view.url : '';
    $('#webhook-schedule-input').value = view.schedule;
    $('#webhook-events-input').value = view.events?.length === 1 ? view.events[0] : '';
  }
}

// The deliveries whose attempts are open: a refresh keeps them open.
const openDeliveries = new Set();

function attemptsTable(attempts) {
  const table = document.createElement('table');
  table.className = 'table attempts';
  const caption = document.createElement('caption');
  caption.textContent = 'Attempts';
  const head = document.createElement('thead');
  const headRow = document.createElement('tr');
  for (const name of ['Time', 'Status', 'Latency', 'Result', 'Sent to']) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = name;
    headRow.append(th);
  }
  head.append(headRow);
  const body = document.createElement('tbody');
  for (const a of attempts) {
    const tr = document.createElement('tr');
    tr.className = a.acknowledged ? 'acknowledged' : 'refused';
    tr.append(
      cell(when(a.at), 'nowrap'),
      cell(a.status === undefined ? 'no answer' : String(a.status), 'nowrap'),
      cell(`${a.latencyMs} ms`, 'num nowrap'),
      cell(a.acknowledged ? 'acknowledged' : (a.reason ?? 'not acknowledged'), 'reason'),
      cell(a.url),
    );
    body.append(tr);
  }
  table.append(caption, head, body);
  return table;
}

// A delivery's attempts and event, in a row of their own under it, opened on demand.
function deliveryDetails(d, id) {
  const tr = document.createElement('tr');
  tr.className = 'delivery-details';
  tr.id = id;
  tr.dataset.delivery = d.id;
  tr.hidden = !openDeliveries.has(d.id);
  const td = document.createElement('td');
  td.colSpan = $('#deliveries thead tr').children.length;
  const fault = d.fault ? [d.fault.kind, d.fault.delay, d.fault.status, d.fault.attempts === undefined ? undefined : `${d.fault.attempts} attempts`].filter((part) => part !== undefined).join(', ') : '';
  td.append(facts([
    ['Delivery', d.id], ['Event id', d.event.eventId], ['Event date', d.event.eventDate], ['ackReference', d.ackReference],
    ['Schedule', d.schedule], ['Repeats', d.copyOf], ['Fault', fault], ['Updated', when(d.updatedAt)],
  ]));
  if (d.attempts.length > 0) td.append(attemptsTable(d.attempts));
  else td.append(Object.assign(document.createElement('p'), { className: 'hint', textContent: d.state === 'scheduled' ? 'No attempt yet.' : `No attempt: ${d.state}.` }));
  const event = document.createElement('details');
  const summary = document.createElement('summary');
  summary.textContent = 'Event as sent';
  const pre = document.createElement('pre');
  pre.textContent = JSON.stringify(d.event, null, 2);
  event.append(summary, pre);
  td.append(event);
  tr.append(td);
  return tr;
}

async function loadDeliveries() {
  const deliveries = await readPage('deliveries');
  fill('#deliveries', deliveries.flatMap((d) => {
    const tr = document.createElement('tr');
    tr.className = 'delivery';
    tr.dataset.delivery = d.id;
    const detailsId = `delivery-${d.id}`;
    const more = document.createElement('td');
    const open = openDeliveries.has(d.id);
    const toggle = button(open ? 'Close' : 'Open', 'small secondary toggle-row', () => {
      const opening = !openDeliveries.has(d.id);
      if (opening) openDeliveries.add(d.id);
      else openDeliveries.delete(d.id);
      document.getElementById(detailsId).hidden = !opening;
      toggle.setAttribute('aria-expanded', String(opening));
      toggle.textContent = opening ? 'Close' : 'Open';
    });
    toggle.setAttribute('aria-expanded', String(open));
    toggle.setAttribute('aria-controls', detailsId);
    more.append(toggle);
    const action = document.createElement('td');
    action.append(button('Redeliver', 'small secondary', () => guarded(async () => {
      const copy = await call('POST', `/webhooks/deliveries/${segment(d.id)}/redeliver`);
      notice(`Redelivering the ${d.event.eventType} event of ${d.paymentReference} (${copy.id}).`);
      await refreshAndSoonAgain();
    })));
    tr.append(
      cell(when(d.createdAt), 'datetime'), cell(d.event.eventType, 'nowrap'), cell(d.paymentReference), merchantCell(d.publicKey),
      cell(d.state, `state state-${d.state}`), cell(String(d.attempts.length), 'num'),
      cell(d.state === 'scheduled' ? when(d.dueAt) : '—', 'datetime'), more, action,
    );
    return [tr, deliveryDetails(d, detailsId)];
  }));
}

async function trigger(payment, eventType) {
  await guarded(async () => {
    const { deliveries } = await call('POST', `/webhooks/${segment(payment.publicKey)}/trigger`, { eventType, paymentReference: payment.paymentReference });
    notice(`Sending the ${eventType} event of ${payment.paymentReference}: ${deliveries.length} ${deliveries.length === 1 ? 'delivery' : 'deliveries'} made.`);
    await refreshAndSoonAgain();
  });
}

// A delivery made now is attempted at once, a moment after the answer: the views are read again then.
let followUp;
async function refreshAndSoonAgain() {
  await refresh();
  clearTimeout(followUp);
  followUp = setTimeout(() => guarded(refresh), 1500);
}

const KINDS = { settlement: 'settlement', expiry: 'expiry', charge: 'subscription charge', delivery: 'delivery attempt' };

async function loadClock() {
  const shown = merchant();
  $('#clock').hidden = !shown;
  $('#clock-none').hidden = Boolean(shown);
  if (!shown) return;
  const clock = await call('GET', `/clock/${segment(shown)}`);
  if (merchant() === shown) showClock(clock);
}

function showClock(clock) {
  $('#clock-now').textContent = `${when(clock.now)} UTC`;
  $('#clock-offset').textContent = clock.offsetMs === 0 ? `${clock.offset} (real time)` : `${clock.offset} (${clock.offsetMs} ms)`;
  const now = Date.parse(clock.now);
  fill('#pending', clock.pending.map((item) => {
    const tr = document.createElement('tr');
    tr.append(cell(when(item.at), 'nowrap'), cell(inTime(Date.parse(item.at) - now), 'nowrap'), cell(KINDS[item.kind] ?? item.kind), cell(item.paymentReference), cell(item.deliveryId ?? ''));
    return tr;
  }));
}

async function guarded(work) {
  try {
    await work();
  } catch (error) {
    notice(`Could not do that: ${error.message}`);
  }
}

$('#override-form').addEventListener('submit', (event) => {
  event.preventDefault();
  guarded(async () => {
    const body = { scenario: $('#scenario').value };
    if ($('#scope').value === 'merchant') {
      if (!merchant()) throw new Error('choose a merchant first, or set it for every merchant');
      body.publicKey = merchant();
    }
    if ($('#times').value) body.times = Number($('#times').value);
    await call('POST', '/overrides', body);
    notice(`Override set: ${body.scenario}.`);
    await refresh();
  });
});
$('#scenario').addEventListener('change', describeScenario);
$('#merchant').addEventListener('change', () => guarded(async () => { firstPages(); await refresh(); }));
// Typing asks for the matching merchants once it pauses, not at every key.
let searching;
$('#merchant-search').addEventListener('input', () => {
  clearTimeout(searching);
  searching = setTimeout(() => guarded(async () => {
    await loadMerchants();
    document.body.dataset.searched = $('#merchant-search').value.trim();
  }), 250);
});
for (const nav of document.querySelectorAll('nav.pager')) {
  nav.addEventListener('click', (event) => {
    const go = event.target.closest('button[data-go]')?.dataset.go;
    if (go) guarded(() => turn(nav.dataset.list, go));
  });
}
$('#refresh').addEventListener('click', () => guarded(refresh));
$('#webhook-form').addEventListener('submit', (event) => {
  event.preventDefault();
  guarded(async () => {
    if (!merchant()) throw new Error('choose a merchant first');
    const body = { url: $('#webhook-url-input').value.trim(), schedule: $('#webhook-schedule-input').value };
    if ($('#webhook-events-input').value) body.events = [$('#webhook-events-input').value];
    const view = await call('PUT', `/webhooks/${segment(merchant())}`, body);
    notice(`Notifications of ${merchant()} now go to ${view.url} (${view.schedule} schedule).`);
    await refresh();
  });
});
$('#webhook-remove').addEventListener('click', () => guarded(async () => {
  if (!merchant()) throw new Error('choose a merchant first');
  await call('DELETE', `/webhooks/${segment(merchant())}`);
  webhookFormOf = undefined;
  notice(`Removed the notification URL of ${merchant()}.`);
  await refresh();
}));
$('#advance-form').addEventListener('submit', (event) => {
  event.preventDefault();
  guarded(async () => {
    if (!merchant()) throw new Error('choose a merchant first');
    const by = $('#advance-by').value.trim();
    const clock = await call('POST', `/clock/${segment(merchant())}/advance`, { by });
    const fired = clock.fired.map((item) => `${KINDS[item.kind] ?? item.kind} of ${item.paymentReference}`);
    notice(`Advanced the clock of ${merchant()} by ${by}, to ${when(clock.now)} UTC. ${fired.length === 0 ? 'Nothing fell due.' : `Carried out: ${fired.join(', ')}.`}`);
    showClock(clock);
    await refresh();
  });
});
// Polling the control API, for a QA person watching traffic arrive; off until asked for.
let polling;
$('#auto-refresh').addEventListener('change', (event) => {
  clearInterval(polling);
  if (event.target.checked) polling = setInterval(() => guarded(refresh), 2000);
});
$('#reset-merchant').addEventListener('click', () => guarded(async () => {
  if (!merchant()) throw new Error('choose a merchant first');
  await call('POST', `/reset${query()}`);
  notice(`Reset ${merchant()}.`);
  firstPages();
  await refresh();
}));
$('#reset-all').addEventListener('click', () => guarded(async () => {
  if (!window.confirm('Forget every payment, order, delivery, override and journal entry of every merchant, and set their clocks back?')) return;
  await call('POST', '/reset');
  notice('Reset everything.');
  firstPages();
  await refresh();
}));

$('#token-form').addEventListener('submit', (event) => {
  event.preventDefault();
  try { sessionStorage.setItem(TOKEN_KEY, $('#control-token').value); } catch { notice('This browser keeps no session storage: the token cannot be kept.'); return; }
  $('#control-token').value = '';
  $('#token-section').hidden = true;
  notice('');
  start();
});

function start() {
  guarded(async () => {
    await loadScenarios();
    await refresh();
    document.body.dataset.ready = 'true';
  });
}
start();
