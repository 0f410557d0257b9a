/**
 * Control characters made visible, for text written where a person or a
 * terminal reads it (README, "Logs"): a value a client chose (a
 * paymentReference, a path) must not start a line of its own, rewrite one
 * (`\r`, ANSI escapes), or reorder what a terminal shows (bidirectional
 * overrides).
 */

// C0 (newline, carriage return, tab, ESC, ...), DEL and C1, the line and paragraph
// separators, and the bidirectional embeddings, overrides and isolates.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const CONTROLS = new RegExp(CONTROL.source, 'g');
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * `text` with every control character escaped as JSON writes it: `\n`, `\r`,
 * `\t`, and `\u001b`, `\u0085`, `\u2028`, `\u202e` for the others. Inside a
 * JSON string the result means the same, so a JSON line stays valid JSON.
 * Text without one is returned as it is, after a single scan.
 */
export function escapeControls(text: string): string {
  return CONTROL.test(text) ? text.replace(CONTROLS, escapeOne) : text;
}

const escapeOne = (character: string): string => NAMED[character] ?? `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
