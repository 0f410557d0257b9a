import { hasOutcome, operationsOf, type Scenario } from '../scenarios/scenario.js';

/** The widest line `scenarioTable` writes: a terminal of 100 columns shows it without wrapping. */
export const TABLE_WIDTH = 100;

/**
 * The catalogue as plain text of at most TABLE_WIDTH columns: per scenario,
 * its name, then how it is triggered (by the request's values, or only by
 * header/override), what it answers, and its description, each wrapped
 * under the name. `scenarios list --json` gives every field whole.
 */
export function scenarioTable(scenarios: readonly Scenario[]): string {
  const blocks = scenarios.map((scenario) =>
    [
      scenario.name,
      ...wrap(trigger(scenario), '  trigger:  ', ' '.repeat(12)),
      ...wrap(outcome(scenario), '  answers:  ', ' '.repeat(12)),
      ...wrap(scenario.description, '  ', '  '),
    ].join('\n'),
  );
  return blocks.join('\n\n');
}

// Words moved to the next line at TABLE_WIDTH; a word longer than a line (a JSON condition) is cut.
function wrap(text: string, first: string, rest: string): string[] {
  const lines: string[] = [];
  let line = first;
  let empty = true;
  for (let word of text.split(/\s+/).filter((part) => part !== '')) {
    while (word !== '') {
      const room = TABLE_WIDTH - line.length - (empty ? 0 : 1);
      if (word.length <= room) {
        line += (empty ? '' : ' ') + word;
        empty = false;
        word = '';
      } else if (!empty) {
        lines.push(line);
        line = rest;
        empty = true;
      } else {
        line += word.slice(0, room);
        word = word.slice(room);
        lines.push(line);
        line = rest;
      }
    }
  }
  if (!empty) lines.push(line);
  return lines;
}

function trigger(scenario: Scenario): string {
  if (scenario.explicit || !hasOutcome(scenario)) return 'header/override';
  const { body, payment, variant, card } = scenario.match;
  const values = [
    ...(variant ? [`variant ${variant.join('/')}`] : []),
    ...Object.entries(body ?? {}).map(([field, condition]) => `${field} ${JSON.stringify(condition)}`),
    ...(payment ? [`payment ${JSON.stringify(payment)}`] : []),
    ...(card ? [`card ${JSON.stringify(card)}`] : []),
  ];
  const where = operationsOf(scenario).join(', ');
  return values.length > 0 ? `${where}: ${values.join(', ')}` : `${where}: any request`;
}

function outcome(scenario: Scenario): string {
  const { then } = scenario;
  const parts = [];
  if (then.code) parts.push(`${then.code} ${then.message}`);
  if (then.http) parts.push(`HTTP ${then.http.status} ${then.http.message ?? then.http.error}`);
  if (then.delay) parts.push('ms' in then.delay ? `+${then.delay.ms} ms` : `+${then.delay.minMs}-${then.delay.maxMs} ms`);
  if (then.fault) parts.push(then.fault);
  return parts.join(', ');
}
