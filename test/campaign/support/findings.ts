import type { RawAnswer, RawRequest } from './raw-http.js';

/**
 * Failures met by a campaign, grouped so that a thousand requests failing
 * the same way read as one finding: its count, the kinds of request that
 * met it, and the shortest request that did, written out to be replayed.
 */

/** One failure of one request. */
export interface Finding {
  /** the rule broken: `unexpected 500`, `merchant created by a refused request`, ... */
  category: string;
  /** what makes two failures the same one (besides the category) */
  key: string;
  /** how it failed, in a sentence */
  detail: string;
  /** what the request was meant to be (`valid`, `path publicKey: odd unicode`, ...) */
  what: string;
  /** the operation the request was built from, if any */
  operation?: string;
  request: RawRequest;
  answer?: RawAnswer;
  /** what the server wrote to stderr meanwhile */
  stderr?: string;
}

/** Failures that are the same one. */
export interface FindingGroup {
  category: string;
  key: string;
  count: number;
  /** the kinds of request that met it, at most ten */
  whats: string[];
  /** the operations whose requests met it */
  operations: string[];
  /** the shortest request that met it */
  shortest: Finding;
}

/** A set of findings, grouped as they are added. */
export class Findings {
  private readonly groups = new Map<string, FindingGroup>();

  /** Adds one failure to its group. */
  add(finding: Finding): void {
    const id = `${finding.category}\u0000${finding.key}`;
    const group = this.groups.get(id);
    if (!group) {
      this.groups.set(id, { category: finding.category, key: finding.key, count: 1, whats: [finding.what], operations: finding.operation ? [finding.operation] : [], shortest: finding });
      return;
    }
    group.count += 1;
    if (finding.operation && !group.operations.includes(finding.operation)) group.operations.push(finding.operation);
    if (group.whats.length < 10 && !group.whats.includes(finding.what)) group.whats.push(finding.what);
    if (sizeOf(finding.request) < sizeOf(group.shortest.request)) group.shortest = finding;
  }

  /** The groups of one category, the most frequent first. */
  of(category: string): FindingGroup[] {
    return [...this.groups.values()].filter((group) => group.category === category).sort((a, b) => b.count - a.count);
  }

  /** Every group. */
  all(): FindingGroup[] {
    return [...this.groups.values()];
  }
}

/** A group written out: the count, what met it, and the shortest request with its answer. */
export function describeGroup(group: FindingGroup): string {
  const { shortest } = group;
  const lines = [
    `${group.category}: ${group.key} (${group.count}×${group.operations.length ? ` on ${group.operations.join(', ')}` : ''}; ${group.whats.join(' | ')})`,
    `  ${shortest.detail}`,
    '  request:',
    indent(showRequest(shortest.request)),
  ];
  if (shortest.answer) lines.push('  answer:', indent(showAnswer(shortest.answer)));
  if (shortest.stderr) lines.push('  stderr:', indent(abbreviate(shortest.stderr.trim(), 1200)));
  return lines.join('\n');
}

/** A request as HTTP text, long runs of one character shortened. */
export function showRequest(request: RawRequest): string {
  const headers = (request.headers ?? []).map(([name, value]) => `${name}: ${abbreviate(value, 300)}`);
  const body =
    request.body === undefined ? '' : typeof request.body === 'string' ? abbreviate(request.body, 1500) : `<${request.body.length} bytes: ${Buffer.from(request.body).subarray(0, 48).toString('hex')}…>`;
  return [`${request.method} ${abbreviate(request.target, 300)} ${request.version ?? 'HTTP/1.1'}${request.omitHost ? '   (no Host header)' : ''}`, ...headers, '', body].join('\n');
}

/** An answer as status, the headers that matter, and the body. */
export function showAnswer(answer: RawAnswer): string {
  if (answer.status === 0) return `no answer: ${answer.error ?? ''}`;
  const kept = ['content-type', 'x-sandbox-scenario', 'x-sandbox-detail', 'allow'].filter((name) => answer.headers[name] !== undefined);
  return [`HTTP ${answer.status}`, ...kept.map((name) => `${name}: ${answer.headers[name]}`), '', abbreviate(answer.text, 800)].join('\n');
}

/** `text` with runs of one character over 40 long written as `<c ×n>`, control characters escaped, cut at `max`. */
export function abbreviate(text: string, max: number): string {
  const short = text.replace(/(.)\1{39,}/gs, (run, char: string) => `<${JSON.stringify(char).slice(1, -1)} ×${run.length}>`).replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return short.length > max ? `${short.slice(0, max)}… (${short.length} characters)` : short;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}

function sizeOf(request: RawRequest): number {
  const headers = (request.headers ?? []).reduce((sum, [name, value]) => sum + name.length + value.length, 0);
  return request.target.length + headers + (request.body === undefined ? 0 : request.body.length);
}
