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

// Payments, orders and the journal grow with traffic: each is read one page
// at a time (control-api.yaml, "Paging"), never whole. A cursor only leads
// forward, so each list keeps the cursors of the pages before the one shown
// to go back.
const PAGE_SIZE = { payments: 50, orders: 50, requests: 25 };
const pagers = Object.fromEntries(Object.keys(PAGE_SIZE).map((list) => [list, { before: [], cursor: undefined, next: undefined }]));

function firstPages() {
  for (const pager of Object.values(pagers)) Object.assign(pager, { before: [], cursor: undefined, next: undefined });
}

function pagePath(list) {
  const params = new URLSearchParams({ limit: String(PAGE_SIZE[list]) });
  if (merchant()) params.set('publicKey', merchant());
  if (pagers[list].cursor) params.set('cursor', pagers[list].cursor);
  return `/${list}?${params}`;
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
    Object.assign(pager, { before: [], cursor: undefined });
    page = await call('GET', pagePath(list));
  }
  pager.next = page.next;
  const nav = $(`nav[data-list="${list}"]`);
  const first = pager.before.length * PAGE_SIZE[list] + 1;
  const shown = page[list].length;
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
    pager.cursor = pager.next;
  } else {
    if (pager.before.length === 0) return;
    pager.cursor = pager.before.pop();
  }
  await LOADERS[list]();
}

async function loadMerchants() {
  const { merchants } = await call('GET', '/merchants');
  const select = $('#merchant');
  const chosen = select.value;
  const options = [new Option('All merchants', '')].concat(merchants.map((m) => new Option(m.publicKey, m.publicKey)));
  select.replaceChildren(...options);
  select.value = merchants.some((m) => m.publicKey === chosen) ? chosen : '';
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

async function refresh() {
  await loadMerchants();
  await Promise.all([loadOverrides(), loadPayments(), loadOrders(), loadJournal()]);
  // Lets a reader (or a test) tell which merchant the tables now show.
  document.body.dataset.shown = merchant() || 'all';
}

async function loadOverrides() {
  const { overrides } = await call('GET', '/overrides');
  fill('#overrides', overrides
    .filter((o) => !merchant() || !o.publicKey || o.publicKey === merchant())
    .map((o) => {
      const tr = document.createElement('tr');
      const action = document.createElement('td');
      action.append(button('Remove', 'small secondary', () => guarded(async () => { await call('DELETE', `/overrides/${encodeURIComponent(o.id)}`); notice(`Removed the override ${o.scenario ?? ''}.`); await refresh(); })));
      const wire = [o.delay ? ('ms' in o.delay ? `${o.delay.ms} ms` : `${o.delay.minMs}-${o.delay.maxMs} ms`) : '', o.fault ?? ''].filter(Boolean).join(', ');
      tr.append(cell(o.scenario ?? '—'), cell(o.publicKey ?? 'every merchant'), cell(o.times === undefined ? 'until removed' : String(o.times)), cell(wire), action);
      return tr;
    }));
}

async function loadPayments() {
  const payments = await readPage('payments');
  fill('#payments', payments.map((p) => {
    const tr = document.createElement('tr');
    const settle = document.createElement('td');
    if (p.status === 'PENDING') {
      // The body names the merchant: references are unique per merchant only.
      const complete = (outcome, said) => guarded(async () => {
        await call('POST', `/payments/${encodeURIComponent(p.paymentReference)}/complete`, { outcome, publicKey: p.publicKey });
        notice(`${p.paymentReference} ${said}.`);
        await refresh();
      });
      settle.append(
        button('Succeed', 'small', () => complete('success', 'succeeded')),
        document.createTextNode(' '),
        button('Fail', 'small danger', () => complete('failure', 'failed')),
      );
    }
    const refunded = p.refundedAmount && Number(p.refundedAmount) > 0 ? `${p.currency} ${p.refundedAmount}` : '';
    tr.append(cell(p.paymentReference), merchantCell(p.publicKey), cell(p.method), cell(p.status, `status status-${p.status}`), cell(`${p.code} ${p.message}`), cell(`${p.currency} ${p.amount}`, 'num nowrap'), cell(refunded, 'num nowrap refunded'), cell(p.scenario), settle);
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

const LOADERS = { payments: loadPayments, orders: loadOrders, requests: loadJournal };

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
for (const nav of document.querySelectorAll('nav.pager')) {
  nav.addEventListener('click', (event) => {
    const go = event.target.closest('button[data-go]')?.dataset.go;
    if (go) guarded(() => turn(nav.dataset.list, go));
  });
}
$('#refresh').addEventListener('click', () => guarded(refresh));
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
  if (!window.confirm('Forget every payment, order, override and journal entry of every merchant?')) return;
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
