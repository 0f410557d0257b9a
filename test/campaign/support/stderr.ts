import { vi } from 'vitest';

/**
 * What a sandbox running in this process writes to stderr (console.error,
 * console.warn and direct writes), kept instead of shown, so that each
 * request can be checked for the stack trace it caused. An exception nobody
 * caught, which would end a sandbox running on its own, is kept too, after
 * `UNCAUGHT`.
 */

/** What precedes an exception nobody caught in the captured text. */
export const UNCAUGHT = 'uncaught exception (a sandbox process would have died): ';

/** A capture of stderr under way. */
export interface StderrCapture {
  /** what was written since the last call */
  takeNew(): string;
  /** puts console and stderr back */
  restore(): void;
}

/** Starts capturing this process's stderr. */
export function captureStderr(): StderrCapture {
  let pending = '';
  const keep = (...parts: unknown[]) => {
    pending += `${parts.map((part) => (part instanceof Error ? (part.stack ?? String(part)) : typeof part === 'string' ? part : safeJson(part))).join(' ')}\n`;
  };
  const uncaught = (error: unknown) => keep(UNCAUGHT, error);
  process.on('uncaughtException', uncaught);
  process.on('unhandledRejection', uncaught);
  const spies = [
    vi.spyOn(console, 'error').mockImplementation(keep),
    vi.spyOn(console, 'warn').mockImplementation(keep),
    vi.spyOn(process.stderr, 'write').mockImplementation(((chunk: unknown) => {
      pending += typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8');
      return true;
    }) as typeof process.stderr.write),
  ];
  return {
    takeNew() {
      const text = pending;
      pending = '';
      return text;
    },
    restore() {
      process.off('uncaughtException', uncaught);
      process.off('unhandledRejection', uncaught);
      for (const spy of spies) spy.mockRestore();
    },
  };
}

/** True when `text` holds a stack trace (an `at ...` frame line). */
export const hasStackTrace = (text: string): boolean => /^\s+at\s.+/m.test(text);

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}
