// The dashboard (the QA cockpit): one shell page for every view, each at its
// own address below /__sandbox/dashboard/ (docs/decisions.md#d83-dashboard-addresses).
// This module routes an address to its view, keeps the header's links, asks
// for the control token, and applies the live events of GET /__sandbox/events.
import { BASE, CONTROL, h, keepToken, nav, storedToken, whenUnauthorized } from './ui.js';
import * as overview from './overview.js';
import * as merchant from './merchant.js';
import * as payment from './payment.js';
import * as goLive from './go-live.js';
import * as notifications from './notifications.js';
import * as clock from './clock.js';
import * as scenarios from './scenarios.js';
import * as journal from './journal.js';
import * as notFound from './not-found.js';
import { viewOf } from './views.js';

const main = document.getElementById('view');
const notice = document.getElementById('notice');
nav.notice = (text) => { notice.textContent = text; };

/**
 * The view an address names and its parameters: `[view module, {publicKey?, paymentReference?}]`.
 * An address naming no view (views.js, viewOf) is the not-found view.
 */
function resolve(pathname) {
  const found = pathname.startsWith(BASE) ? viewOf(pathname.slice(BASE.length)) : undefined;
  return found ? [MODULES[found.view], found.params] : [notFound, {}];
}

const MODULES = { overview, merchant, 'go-live': goLive, payment, notifications, clock, scenarios, journal };

// The view on show: its module, its address's path and what mount() gave back ({load, touches}).
let current;
// Bumped by every route(): a load started for an earlier address does not mark the new one ready.
let generation = 0;

async function route() {
  const [view, params] = resolve(location.pathname);
  const search = new URLSearchParams(location.search);
  notice.textContent = '';
  if (current && current.path === location.pathname && current.view === view) {
    current.search = search;
    current.instance.update?.(search);
    return refresh();
  }
  generation += 1;
  main.replaceChildren();
  main.dataset.view = view.NAME;
  main.removeAttribute('data-ready');
  const context = {
    main, params, search,
    // Changes the address's query (a filter): bookmarkable, and back and forward return to it.
    setQuery(values, { replace = false } = {}) {
      const next = new URLSearchParams();
      for (const [name, value] of Object.entries(values)) if (value !== undefined && value !== null && value !== '') next.set(name, String(value));
      const text = next.toString();
      const href = `${location.pathname}${text ? `?${text}` : ''}`;
      if (replace) history.replaceState(null, '', href);
      else history.pushState(null, '', href);
      return route();
    },
    refresh: () => refresh(),
  };
  current = { view, path: location.pathname, search, instance: view.mount(context) };
  document.title = `${view.title(params)} · Sandbox dashboard`;
  markHeader(view, params);
  await refresh();
}

// One load at a time: one started before an action or an event must not finish after a later one. A load
// asked for while another waits to start is that one: a burst of events cannot queue loads without end.
let loading = Promise.resolve();
let queued;
function refresh() {
  // Absent from now until the view has drawn what it reads: a reader (or a test) waits for it again.
  main.removeAttribute('data-ready');
  if (queued) return queued;
  const run = loading.then(async () => {
    queued = undefined;
    // The view on show when the load starts, not when it was asked for: an address opened meanwhile is the one read.
    const shown = current;
    const mine = generation;
    if (!shown) return;
    main.removeAttribute('data-ready');
    try {
      await shown.instance.load();
    } catch (error) {
      nav.notice(`Could not read the view: ${error.message}`);
    }
    if (current === shown && mine === generation) main.dataset.ready = 'true';
  });
  queued = run;
  loading = run.catch(() => undefined);
  return run;
}

// ---------------------------------------------------------------- header
const views = document.getElementById('views');
function markHeader(view, params) {
  for (const extra of views.querySelectorAll('[data-nav="merchant"], [data-nav="payment"], [data-nav="go-live"]')) extra.remove();
  // A merchant's view, its go-live report and a payment's story need their keys: the header links them while one is open.
  if (params.publicKey) {
    // Every test key starts SBTESTPUBK_: the header shows the part that tells merchants apart, the title the whole key.
    const merchantLink = h('a', { href: `${BASE}merchants/${encodeURIComponent(params.publicKey)}`, dataset: { nav: 'merchant' }, title: params.publicKey }, `Merchant ${shorten(params.publicKey.replace(/^SBTESTPUBK_(?=.)/, ''))}`);
    views.querySelector('[data-nav="overview"]').after(merchantLink);
    if (view.NAME === 'go-live') merchantLink.after(h('a', { href: location.pathname, dataset: { nav: 'go-live' } }, 'Go-live report'));
    if (params.paymentReference) merchantLink.after(h('a', { href: location.pathname, dataset: { nav: 'payment' }, title: params.paymentReference }, `Payment ${shorten(params.paymentReference)}`));
  }
  for (const a of views.querySelectorAll('a')) {
    if (a.dataset.nav === view.NAME) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}

const shorten = (value) => (value.length > 18 ? `${value.slice(0, 8)}…${value.slice(-8)}` : value);

/** Opens an address of the dashboard without reloading the page. */
function go(href) {
  const url = new URL(href, location.href);
  if (url.origin !== location.origin || !url.pathname.startsWith(BASE)) {
    location.href = url.href;
    return Promise.resolve();
  }
  history.pushState(null, '', url.pathname + url.search);
  return route().then(() => main.focus({ preventScroll: true }));
}
nav.go = go;

document.addEventListener('click', (event) => {
  const a = event.target.closest?.('a[href]');
  if (!a || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin || !url.pathname.startsWith(BASE)) return;
  event.preventDefault();
  go(url.href);
});
window.addEventListener('popstate', () => { route(); });

// ---------------------------------------------------------------- the control token
const tokenSection = document.getElementById('token-section');
const tokenInput = document.getElementById('control-token');
whenUnauthorized(() => {
  tokenSection.hidden = false;
  tokenInput.focus();
});
document.getElementById('token-form').addEventListener('submit', (event) => {
  event.preventDefault();
  try { keepToken(tokenInput.value); } catch { nav.notice('This browser keeps no session storage: the token cannot be kept.'); return; }
  tokenInput.value = '';
  tokenSection.hidden = true;
  nav.notice('');
  live.restart();
  refresh();
});

// ---------------------------------------------------------------- live events
// GET /__sandbox/events read with fetch() and a stream reader rather than
// EventSource, which cannot send the control token (docs/decisions.md#d83-dashboard-addresses).
const pauseButton = document.getElementById('pause');
const liveStatus = document.getElementById('live');

/** The live events: connected while the page is open, reconnecting with Last-Event-ID. */
const live = {
  lastId: undefined,
  controller: undefined,
  paused: false,
  waiting: [],
  retryMs: 500,
  stopped: false,

  restart() {
    this.controller?.abort();
    this.stopped = false;
    this.connect();
  },

  async connect() {
    const controller = new AbortController();
    this.controller = controller;
    const headers = { accept: 'text/event-stream' };
    const token = storedToken();
    if (token) headers.authorization = `Bearer ${token}`;
    if (this.lastId !== undefined) headers['last-event-id'] = String(this.lastId);
    try {
      const response = await fetch(`${CONTROL}/events`, { headers, signal: controller.signal, cache: 'no-store' });
      if (response.status === 401) {
        // The token form asks for it; the stream starts again once it is given.
        this.stopped = true;
        liveStatus.textContent = 'live updates need the token';
        showTokenForm();
        return;
      }
      if (!response.ok || !response.body) throw new Error(`${response.status}`);
      liveStatus.textContent = 'live';
      main.dataset.live = 'true';
      this.retryMs = 500;
      await this.read(response.body.getReader());
    } catch {
      if (controller.signal.aborted) return;
    }
    if (controller.signal.aborted || this.stopped) return;
    delete main.dataset.live;
    liveStatus.textContent = 'reconnecting…';
    setTimeout(() => { if (this.controller === controller) this.connect(); }, this.retryMs);
    this.retryMs = Math.min(this.retryMs * 2, 10_000);
  },

  async read(reader) {
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end;
      while ((end = buffer.search(/\r?\n\r?\n/)) !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '');
        this.take(block);
      }
    }
  },

  // One server-sent event: `id:` and `data:` lines; comment lines (`: keep-alive`) say nothing.
  take(block) {
    let data = '';
    let id;
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith('data:')) data += line.slice(5).replace(/^ /, '');
      else if (line.startsWith('id:')) id = line.slice(3).trim();
    }
    if (id !== undefined) this.lastId = id;
    if (!data) return;
    let event;
    try { event = JSON.parse(data); } catch { return; }
    if (this.paused) {
      this.waiting.push(event);
      showPause();
      return;
    }
    apply([event]);
  },
};

function showTokenForm() {
  tokenSection.hidden = false;
}

// The open view refreshes once for a burst of events that touch it: 150 ms after the last, within 600 ms of the first.
let debounce;
let firstPending;
function apply(events) {
  if (!current) return;
  const touched = events.some((event) => event.kind === 'reload' || event.kind === 'reset' || event.kind === 'replace' || current.instance.touches(event));
  if (!touched) return;
  const now = Date.now();
  firstPending ??= now;
  clearTimeout(debounce);
  const wait = Math.max(0, Math.min(150, 600 - (now - firstPending)));
  debounce = setTimeout(() => { firstPending = undefined; refresh(); }, wait);
}

function showPause() {
  pauseButton.setAttribute('aria-pressed', String(live.paused));
  const waiting = live.waiting.length;
  pauseButton.textContent = live.paused ? `Resume live updates${waiting ? ` (${waiting} waiting)` : ''}` : 'Pause live updates';
  pauseButton.dataset.waiting = String(waiting);
}
pauseButton.addEventListener('click', () => {
  live.paused = !live.paused;
  if (!live.paused) {
    const events = live.waiting;
    live.waiting = [];
    apply(events);
  }
  showPause();
});

// ---------------------------------------------------------------- start
route();
live.connect();
// Lets a test check the page was not reloaded: a reload starts a new one.
window.__dashboardStartedAt ??= Date.now();
