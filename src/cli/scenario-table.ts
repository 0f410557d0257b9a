import { hasOutcome, operationsOf, type Scenario } from '../scenarios/catalogue.js';

/**
 * The catalogue as a plain-text table: name, how it is triggered (by the
 * request's values, or only by header/override), what it answers, and its
 * description.
 */
export function scenarioTable(scenarios: readonly Scenario[]): string {
  const rows = scenarios.map((scenario) => [scenario.name, trigger(scenario), outcome(scenario), scenario.description]);
  const header = ['NAME', 'TRIGGER', 'ANSWERS', 'DESCRIPTION'];
  const widths = header.slice(0, 3).map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) => cells.map((cell, column) => (column < 3 ? cell.padEnd(widths[column]!) : cell)).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}

function trigger(scenario: Scenario): string {
  if (scenario.explicit || !hasOutcome(scenario)) return 'header/override';
  const { body, payment, variant } = scenario.match;
  const values = [
    ...(variant ? [`variant ${variant.join('/')}`] : []),
    ...Object.entries(body ?? {}).map(([field, condition]) => `${field} ${JSON.stringify(condition)}`),
    ...(payment ? [`payment ${JSON.stringify(payment)}`] : []),
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
