import { PassThrough } from 'node:stream';
import type { LogFormat, LogLevel, Sandbox } from '../../src/index.js';
import { ApiClient, sandboxForTest } from './sandbox.js';

/**
 * The request log of a sandbox started for it: at `logLevel`, in
 * `logFormat`, written to memory; the lines it wrote once `traffic` has run
 * and the log's writer has flushed (at least every 200 ms).
 * @param started given the sandbox as soon as it runs, for the test to close it whatever happens next
 */
export async function loggedLines(
  logLevel: LogLevel,
  logFormat: LogFormat,
  traffic: (api: ApiClient) => Promise<void>,
  started: (sandbox: Sandbox) => void,
): Promise<string[]> {
  const destination = new PassThrough();
  let text = '';
  destination.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  const sandbox = await sandboxForTest({ logLevel, logFormat, logDestination: destination });
  started(sandbox);
  await traffic(await ApiClient.for(sandbox));
  await new Promise((done) => setTimeout(done, 100));
  return text.split('\n').filter((line) => line !== '');
}
