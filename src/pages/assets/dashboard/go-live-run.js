// The go-live report's run (POST /__sandbox/go-live/{publicKey}/runs,
// openapi/control-api.yaml GoLiveRun): started from a button, its steps shown
// as they are answered, read about every second until it is done, because a
// run sends no event of its own (docs/decisions.md#d83-dashboard-addresses).
import { call, cell, facts, h, link, merchantHref, paymentHref, segment, shortValue, statusCell, table } from './ui.js';

/** How often a running run is read again, in milliseconds. */
const POLL_MS = 1000;
const STEPS = {
  success: 'a successful payment',
  duplicate: 'the same event again',
  dispute: 'a dispute',
  'false-success': 'success claimed for a failed payment',
};
// The run each merchant's view last followed: coming back to the view shows it, and follows it on while it runs.
const followed = new Map();

/**
 * The run's card: `element` to put in the page, `show(webhook)` to say where
 * the run sends (GET /webhooks/{publicKey}; `undefined`: no such merchant).
 * `refresh` reads the report again once a run is done.
 */
export function runCard(publicKey, refresh) {
  const target = h('div');
  const start = h('button', { type: 'button', id: 'start-run' }, 'Start a run');
  const status = h('p', { id: 'run-status', tabIndex: -1, attrs: { 'aria-live': 'polite' } });
  const problem = h('p', { id: 'run-error', className: 'bad', hidden: true, attrs: { role: 'alert' } });
  const steps = h('div', { id: 'run-steps' });
  const element = h('section', { className: 'card', id: 'run', attrs: { 'aria-labelledby': 'run-title' } },
    h('h2', { id: 'run-title' }, 'Test the notification receiver'),
    h('p', { className: 'hint' }, 'A run sends four notifications to the merchant\'s notification URL, one after the other: ',
      Object.values(STEPS).join(', '), '. Each is sent once and waits up to 5 s for the acknowledgement; then the run waits up to 30 s for the ',
      'integration\'s status query of its payments. It makes two payments of its own, GOLIVE-<run>-PAID and GOLIVE-<run>-FAILED.'),
    target, h('div', { className: 'actions' }, start), problem, status, steps);

  const say = (text) => { if (status.textContent !== text) status.textContent = text; };
  const fail = (text) => {
    problem.textContent = text;
    problem.hidden = false;
  };

  function draw(run) {
    const answered = run.steps.filter((step) => step.result !== 'waiting').length;
    const passed = run.steps.filter((step) => step.result === 'pass').length;
    element.dataset.run = run.status;
    say(run.status === 'done'
      ? `Run ${run.id} done: ${passed} of ${run.steps.length} steps passed.`
      : `Run ${run.id} running: ${answered} of ${run.steps.length || 4} steps answered…`);
    steps.replaceChildren(table(`Steps of run ${run.id}`, ['Step', 'Event', 'Payment', 'Answer', 'Result', 'Why'],
      run.steps.map((step) => h('tr', { dataset: { step: step.step, result: step.result } },
        cell(STEPS[step.step] ?? step.step, { className: 'text' }),
        cell(shortValue('eventId', step.eventId, { max: 20 }), { oneLine: true }),
        cell(shortValue('paymentReference', step.paymentReference, { href: paymentHref(publicKey, step.paymentReference), max: 28 }), { oneLine: true }),
        cell(answerOf(step.answer), { oneLine: true }),
        statusCell(step.result, 'result'),
        cell(step.detail ?? '', { className: 'text' }))),
      { id: 'run-step-list', empty: 'No step sent yet.' }));
  }

  // Reads the run until it is done or the view is left; then the report, which the run's deliveries changed.
  async function follow(id) {
    for (;;) {
      let run;
      try {
        run = await call('GET', `/go-live/${segment(publicKey)}/runs/${segment(id)}`);
      } catch (error) {
        fail(`Could not read run ${id}: ${error.message}`);
        followed.delete(publicKey);
        return;
      }
      followed.set(publicKey, run);
      if (!element.isConnected) return;
      draw(run);
      if (run.status === 'done') break;
      await new Promise((resolve) => { setTimeout(resolve, POLL_MS); });
    }
    await refresh();
  }

  start.addEventListener('click', async () => {
    start.disabled = true;
    problem.hidden = true;
    steps.replaceChildren();
    delete element.dataset.run;
    // The button is disabled while the run goes: the keyboard's focus moves to what the run says.
    status.focus();
    say('Starting a run…');
    try {
      const started = await call('POST', `/go-live/${segment(publicKey)}/runs`);
      followed.set(publicKey, { ...started, steps: [] });
      await follow(started.id);
    } catch (error) {
      say('');
      fail(error.status === 409 ? `The run did not start: ${error.message}` : `Could not start a run: ${error.message}`);
    } finally {
      start.disabled = false;
    }
  });

  const last = followed.get(publicKey);
  if (last?.steps?.length) draw(last);
  if (last?.status === 'running') {
    start.disabled = true;
    follow(last.id).finally(() => { start.disabled = false; });
  }

  return {
    element,
    show(webhook) {
      const to = webhook?.url;
      target.replaceChildren(facts([['Sends to', to ? shortValue('notification URL', to, { max: 48, breaks: true }) : 'nowhere: no notification URL']]),
        to ? undefined : h('p', {}, link(merchantHref(publicKey), 'Set a notification URL on the merchant\'s view'), ' before starting a run.'));
      start.hidden = webhook === undefined;
    },
  };
}

function answerOf(answer) {
  if (!answer) return 'not sent yet';
  const status = answer.status === undefined ? 'no answer' : `HTTP ${answer.status}`;
  return `${status}${answer.ackReference ? ' with ackReference' : ''}, ${Math.round(answer.ms)} ms`;
}
