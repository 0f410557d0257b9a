// Figures and how the benchmarks print them: median, the machine, plain-text tables.
import { readFileSync, realpathSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';

export function median(values) {
  const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * The 95% interval of the median of `values` by the bootstrap (2,000
 * resamples with replacement): how far the median of another set of runs
 * like these could fall.
 */
export function medianInterval(values, resamples = 2000) {
  const medians = [];
  for (let round = 0; round < resamples; round += 1) medians.push(median(values.map(() => values[Math.floor(Math.random() * values.length)])));
  medians.sort((a, b) => a - b);
  return [medians[Math.floor(resamples * 0.025)], medians[Math.ceil(resamples * 0.975) - 1]];
}

export const min = (values) => Math.min(...values);
export const max = (values) => Math.max(...values);

/** A number with `digits` decimals, or '-' when there is none. */
export const fixed = (value, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '-');

/** The machine and the command line, printed first by every benchmark. */
export function printMachine(title) {
  const quote = (arg) => (/^[\w./:=,@-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`);
  const cores = cpus();
  console.log(title);
  console.log(`  machine:  ${cores[0]?.model ?? 'unknown cpu'}, ${cores.length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB; load average ${loadavg().map((n) => n.toFixed(2)).join(' ')}`);
  console.log(`  node:     ${process.version} (${process.platform} ${process.arch})`);
  console.log(`  command:  ${[process.argv0, ...process.execArgv, ...process.argv.slice(1)].map(quote).join(' ')}`);
}

/** Prints rows (arrays of cells) under a header, each column as wide as its widest cell; numbers right-aligned, text left-aligned. */
export function printTable(header, rows) {
  const widths = header.map((_, i) => Math.max(...[header, ...rows].map((row) => String(row[i]).length)));
  const numeric = header.map((_, i) => rows.every((row) => /^(-?[\d.]+|-)$/.test(String(row[i]))));
  const line = (row) => row.map((cell, i) => (numeric[i] ? String(cell).padStart(widths[i]) : String(cell).padEnd(widths[i]))).join('  ').trimEnd();
  console.log(`  ${line(header)}`);
  for (const row of rows) console.log(`  ${line(row)}`);
}

/** The file system type and mount point holding `folder` (from /proc/mounts): fsync costs nothing on tmpfs, a lot on some disks. */
export function filesystemOf(folder) {
  const dir = realpathSync(folder);
  let best = { mount: '?', type: 'unknown' };
  try {
    for (const line of readFileSync('/proc/mounts', 'utf8').split('\n')) {
      const [, mount, type] = line.split(' ');
      if (mount && (dir === mount || dir.startsWith(mount.endsWith('/') ? mount : `${mount}/`)) && mount.length >= best.mount.length) best = { mount, type };
    }
  } catch {
    // not Linux
  }
  return `${best.type} at ${best.mount}`;
}

/**
 * The cells every load table shows for one server over its rounds: req/s of
 * each round, the median, p50 and p99 (medians over the rounds), the slowest
 * answer of all rounds, the non-2xx answers and the errors (timeouts included), summed.
 * @param loads what runLoad returned, one per round
 */
export function loadCells(loads) {
  return [
    ...loads.map((r) => fixed(r.requestsPerSecond)),
    fixed(median(loads.map((r) => r.requestsPerSecond))),
    fixed(median(loads.map((r) => r.latency.p50)), 2),
    fixed(median(loads.map((r) => r.latency.p99)), 2),
    fixed(Math.max(...loads.map((r) => r.latency.max)), 1),
    loads.reduce((sum, r) => sum + r.non2xx, 0),
    loads.reduce((sum, r) => sum + r.errors + r.timeouts, 0),
  ];
}
