// A light second client: one GET at a time on one kept-alive connection,
// sent every `everyMs` (at once after a slower answer), recording the longest
// answer. A long one means the server's event loop was blocked for everyone.
import http from 'node:http';
import { request } from './http.mjs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts probing `url`; the returned function stops it and resolves with
 * { longestMs, count, failures, over, slow }: `over` counts the answers slower
 * than `overMs`, and `slow` lists them, each as { sentAt (performance.now()), ms }.
 */
export function startProbe(url, everyMs = 10, { overMs = 100 } = {}) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let stopped = false;
  const figures = { longestMs: 0, count: 0, failures: 0, over: 0, slow: [] };
  const loop = (async () => {
    while (!stopped) {
      const sentAt = performance.now();
      const sent = process.hrtime.bigint();
      try {
        const { status } = await request(url, { agent, timeoutMs: 120_000 });
        if (status !== 200) figures.failures += 1;
      } catch {
        figures.failures += 1;
      }
      const ms = Number(process.hrtime.bigint() - sent) / 1e6;
      figures.longestMs = Math.max(figures.longestMs, ms);
      figures.count += 1;
      if (ms > overMs) {
        figures.over += 1;
        figures.slow.push({ sentAt, ms });
      }
      if (ms < everyMs) await sleep(everyMs - ms);
    }
  })();
  return async () => {
    stopped = true;
    await loop;
    agent.destroy();
    return figures;
  };
}
