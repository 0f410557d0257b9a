import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, ROOT, within } from '../support/process.js';

/**
 * The container image, checked without a Docker engine: the Dockerfile
 * linter, and the image's own ENTRYPOINT and HEALTHCHECK commands run on
 * this machine with the image's environment (README, "As a service container").
 */

const run = promisify(execFile);
const dockerfile = await readFile(join(ROOT, 'Dockerfile'), 'utf8');
// Instructions with their continuation lines joined, comments left out.
const instructions = dockerfile.replace(/\\\n\s*/g, ' ').split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));
const argumentsOf = (name: string): string[] => instructions.filter((line) => line.startsWith(`${name} `)).map((line) => line.slice(name.length + 1).trim());
const lastStage = instructions.slice(instructions.findLastIndex((line) => line.startsWith('FROM ')));
const imageEnv = Object.fromEntries(
  lastStage.filter((line) => line.startsWith('ENV ')).flatMap((line) => [...line.slice(4).matchAll(/(\w+)=(\S+)/g)].map((match) => [match[1]!, match[2]!])),
);
const entrypoint = JSON.parse(argumentsOf('ENTRYPOINT')[0]!) as string[];
const healthcheck = JSON.parse(/CMD (\[.*\])$/.exec(argumentsOf('HEALTHCHECK')[0]!)![1]!) as string[];

const folders: string[] = [];
afterAll(async () => {
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

describe('the Dockerfile', () => {
  it('passes the Dockerfile linter', async () => {
    const { stdout } = await run(process.execPath, [join(ROOT, 'node_modules/dockerfile-utils/bin/dockerfile-utils'), 'lint', join(ROOT, 'Dockerfile')]);
    expect(stdout.trim()).toBe('');
  });

  it('builds in one stage and runs in another, as an unprivileged user, on every interface, with the store on a volume', () => {
    expect(argumentsOf('FROM')).toHaveLength(2);
    expect(lastStage.some((line) => /npm ci --omit=dev/.test(line))).toBe(true);
    expect(argumentsOf('USER')).toEqual(['node']);
    expect(imageEnv.SANDBOX_HOST).toBe('0.0.0.0');
    expect(imageEnv.SANDBOX_DATA).toMatch(/^\/data\//);
    expect(argumentsOf('VOLUME')).toEqual(['["/data"]']);
    expect(argumentsOf('EXPOSE')).toEqual(['4010']);
    expect(healthcheck.join(' ')).not.toMatch(/curl|wget/);
  });

  it('the compose example builds this image, publishes the port on the host\'s loopback only and keeps the store on a volume', async () => {
    const compose = parse(await readFile(join(ROOT, 'compose.yaml'), 'utf8'));
    const service = compose.services['payments-sandbox'];
    expect(service.build).toBe('.');
    expect(service.ports).toEqual(['127.0.0.1:4010:4010']);
    expect(service.volumes).toContain('sandbox-data:/data');
    expect(compose.volumes).toHaveProperty('sandbox-data');
  });
});

describe("the image's commands, run on this machine", () => {
  it('the entrypoint serves, the healthcheck says so, and SIGTERM stops it cleanly with the snapshot written', { timeout: 60_000 }, async () => {
    const data = await mkdtemp(join(tmpdir(), 'payments-sandbox-volume-'));
    folders.push(data);
    const port = await freePort();
    // The image's environment, with its volume and port mapped to this machine.
    const env = { ...process.env, ...imageEnv, SANDBOX_DATA: join(data, 'payments-sandbox.json'), PORT: String(port) };
    const check = () => run(healthcheck[0] === 'node' ? process.execPath : healthcheck[0]!, healthcheck.slice(1), { cwd: ROOT, env }).then(() => 0, (error: { code?: number }) => error.code ?? 1);
    expect(await check()).toBe(1);

    const [command, ...args] = entrypoint;
    const child = spawn(command === 'node' ? process.execPath : command!, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    try {
      let healthy = 1;
      for (let tries = 0; tries < 100 && healthy !== 0; tries += 1) {
        healthy = await check();
        if (healthy !== 0) await new Promise((done) => setTimeout(done, 100));
      }
      expect(healthy, out).toBe(0);
      expect(out).toMatch(new RegExp(`listening\\s+http://0\\.0\\.0\\.0:${port} \\(every interface\\)`));
      expect(out).toContain(`links base    http://localhost:${port}`);
      const stopping = Date.now();
      child.kill('SIGTERM');
      expect(await within(exited, 10_000, 'the sandbox to stop on SIGTERM')).toBe(0);
      console.log(`SIGTERM to exit: ${Date.now() - stopping} ms`);
      expect(existsSync(join(data, 'payments-sandbox.json'))).toBe(true);
      expect(existsSync(join(data, 'payments-sandbox.json.lock'))).toBe(false);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
