import type { JournalEntry } from '../journal/journal.js';
import type { Delivery, DeliveryAttempt } from '../model/notifications.js';
import { escapeControls } from '../redaction/controls.js';
import { redactText } from '../redaction/redact.js';

/** How much the sandbox logs: nothing, failed answers only, one line per request, or the bodies too. */
export type LogLevel = 'silent' | 'error' | 'info' | 'debug';

/** How a log line is written: one line for a person, or as JSON (pino's own). */
export type LogFormat = 'pretty' | 'json';

/** Every log level, in the order `--log-level` lists them. */
export const LOG_LEVELS: readonly LogLevel[] = ['silent', 'error', 'info', 'debug'];

/** Writes one request as a log line; `attempt` writes one attempt to deliver a notification. */
export type RequestLog = ((entry: JournalEntry) => void) & { attempt: (delivery: Delivery, attempt: DeliveryAttempt) => void };

/**
 * The request log (README, "Logs"): one line per Payments API request, on
 * stdout, through pino. It is written from the journal's kept form of the
 * request, so what the journal redacts and bounds (card numbers, CVV, PIN,
 * keys, tokens, long values) never reaches the log either. An answer that
 * failed (5xx, or none: a fault) is logged at error level, the others at
 * info; at debug the line carries the (redacted) bodies too. Each attempt
 * to deliver a notification is a line too (README, "Notifications"): at
 * info when acknowledged, at error when not, with the reason.
 *
 * Every line is stamped with the wall clock, so the log reads in order. A
 * notification is sent on its merchant's clock, which the control API can
 * move ahead (README, "Time"): that time is the line's `merchantTime`
 * (docs/decisions.md#d71-log-wall-clock).
 *
 * A request is always one line, whatever its values hold: control
 * characters (newlines, ANSI escapes, DEL and C1, line separators,
 * bidirectional overrides) are written escaped, `\n`, `\u001b`, in both
 * formats, so no value can forge a line or reach the terminal raw.
 * @returns undefined for `silent`, which costs nothing per request
 */
export async function requestLog(level: LogLevel, format: LogFormat, destination?: NodeJS.WritableStream): Promise<RequestLog | undefined> {
  if (level === 'silent') return undefined;
  const { pino } = await import('pino');
  // pino's own writer, buffered: a line a request must not cost a system call each. What is
  // buffered is written at least every FLUSH_EVERY_MS, and before the process exits.
  const stream = destination ?? pino.destination({ dest: 1, sync: false, minLength: 4096 });
  if (destination === undefined) flushNowAndThen(stream as ReturnType<typeof pino.destination>);
  // pino escapes C0 in its JSON but writes DEL, C1 and the Unicode separators and overrides raw:
  // each line is escaped once more, which leaves its JSON meaning as it was.
  const escaped = { write: (line: string) => stream.write(line.endsWith('\n') ? `${escapeControls(line.slice(0, -1))}\n` : escapeControls(line)) };
  const logger = format === 'json' ? pino({ level, base: undefined }, escaped) : undefined;
  const attempt = (delivery: Delivery, made: DeliveryAttempt) => {
    if (made.acknowledged && level === 'error') return;
    const answered = made.status === undefined ? 'no answer' : String(made.status);
    const outcome = made.acknowledged ? 'acknowledged' : `not acknowledged (${made.reason ?? ''}); ${delivery.state === 'scheduled' ? `next attempt ${delivery.dueAt} (merchant's clock)` : delivery.state}`;
    // The reference and the URL were chosen by a client: redacted as the journal redacts them.
    const url = redactText(made.url);
    const paymentReference = redactText(delivery.paymentReference);
    const message = `NOTIFY ${delivery.event.eventType} ${delivery.id} ${url} ${answered} ${Math.round(made.latencyMs * 10) / 10}ms ${paymentReference} ${outcome}`;
    if (!logger) {
      // A person sees the merchant's time only when it is not the line's own: when the merchant's clock was moved.
      const now = Date.now();
      const moved = Math.abs(Date.parse(made.at) - (now - made.latencyMs)) >= CLOCK_MOVED_MS;
      stream.write(`${escapeControls(`[${clock(now)}] ${made.acknowledged ? 'INFO' : 'ERROR'}: ${message}${moved ? ` merchantTime=${made.at}` : ''}`)}\n`);
      return;
    }
    const fields = {
      notification: delivery.id, eventType: delivery.event.eventType, eventId: delivery.event.eventId, url, status: made.status,
      acknowledged: made.acknowledged, reason: made.reason, ms: made.latencyMs, state: delivery.state, paymentReference, publicKey: delivery.publicKey,
      merchantTime: made.at,
    };
    logger[made.acknowledged ? 'info' : 'error'](fields, message);
  };
  const request = (entry: JournalEntry) => {
    const failed = entry.status === 0 || entry.status >= 500;
    if (!failed && level === 'error') return;
    const code = codeOf(entry);
    const ms = Math.round(entry.durationMs * 10) / 10;
    const answered = entry.status === 0 ? `no answer (${entry.fault ?? 'fault'})` : String(entry.status);
    const message = [entry.method, entry.path, answered, code ?? '-', entry.scenario ?? '-', `${ms}ms`, entry.paymentReference ?? ''].join(' ').trimEnd();
    if (!logger) {
      // One line for a person: the time, the level, the sentence.
      stream.write(`${escapeControls(`[${clock(Date.parse(entry.time))}] ${failed ? 'ERROR' : 'INFO'}: ${message}${level === 'debug' ? ` ${JSON.stringify({ request: entry.request, response: entry.response })}` : ''}`)}\n`);
      return;
    }
    const fields = {
      method: entry.method,
      path: entry.path,
      status: entry.status,
      code,
      scenario: entry.scenario,
      reason: entry.reason,
      ms,
      paymentReference: entry.paymentReference,
      publicKey: entry.publicKey,
      ...(level === 'debug' ? { request: entry.request, response: entry.response } : {}),
    };
    logger[failed ? 'error' : 'info'](fields, message);
  };
  return Object.assign(request, { attempt });
}

/** How long a log line may wait in the buffer, in milliseconds. */
const FLUSH_EVERY_MS = 200;

function flushNowAndThen(stream: { flush: (cb?: (error?: Error) => void) => void; flushSync: () => void }): void {
  setInterval(() => stream.flush(() => undefined), FLUSH_EVERY_MS).unref();
  process.once('exit', () => {
    try {
      stream.flushSync();
    } catch {
      // A closed stdout has nowhere to take the last lines.
    }
  });
}

/** How far a merchant's clock must be from the wall clock, in milliseconds, for a pretty line to show its time. */
const CLOCK_MOVED_MS = 1_000;

// HH:MM:ss.mmm of a time in milliseconds since the epoch, in local time as a person reads it.
function clock(ms: number): string {
  const time = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(time.getHours())}:${two(time.getMinutes())}:${two(time.getSeconds())}.${String(time.getMilliseconds()).padStart(3, '0')}`;
}

// The result code of a 200 envelope, or the error of an HTTP error body.
function codeOf(entry: JournalEntry): string | undefined {
  const body = entry.response?.body as { data?: { code?: unknown }; error?: unknown } | undefined;
  const code = body?.data?.code ?? body?.error;
  return typeof code === 'string' ? code : undefined;
}
