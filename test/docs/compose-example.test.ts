import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

/**
 * The compose example that pairs the sandbox with a merchant app and its
 * notification receiver (examples/notifications/): what it names exists and
 * agrees with the repository. Files only; the receivers themselves, run and
 * sent notifications: test/readme/receivers.test.ts.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const RECEIVERS = join(ROOT, 'examples/receivers');
const COMPOSE = join(ROOT, 'examples/notifications/compose.yaml');

describe('the compose example (examples/notifications/compose.yaml)', () => {
  it('pairs the sandbox with the merchant app and points the notifications at its receiver', async () => {
    const compose = parse(await readFile(COMPOSE, 'utf8'));
    const sandbox = compose.services['payments-sandbox'];
    const merchant = compose.services['merchant-app'];
    expect(sandbox).toBeDefined();
    expect(merchant).toBeDefined();
    expect(sandbox.ports).toEqual(['127.0.0.1:4010:4010']);
    expect(sandbox.environment.SANDBOX_PUBLIC_URL).toBe('http://localhost:4010');
    const webhook = new URL(sandbox.environment.SANDBOX_WEBHOOK_URL);
    expect(webhook.protocol).toBe('http:');
    expect(webhook.hostname).toBe('merchant-app');
    // The port the merchant app listens on (its PORT), and the receiver's route.
    expect(webhook.port).toBe(String(merchant.environment.PORT));
    expect(webhook.pathname).toBe('/webhook');
    expect(await readFile(join(RECEIVERS, 'node/receiver.mjs'), 'utf8')).toContain("app.post('/webhook'");
  });

  it('names only build contexts, Dockerfiles and files to copy that exist', async () => {
    const compose = parse(await readFile(COMPOSE, 'utf8'));
    const builds = Object.values(compose.services as Record<string, { build?: { context: string; dockerfile: string } }>).map((service) => service.build!);
    expect(builds).toHaveLength(2);
    for (const build of builds) {
      // Compose: the context from the file's folder, the Dockerfile from the context.
      const context = resolve(dirname(COMPOSE), build.context);
      const dockerfile = resolve(context, build.dockerfile);
      expect(existsSync(context), context).toBe(true);
      expect(existsSync(dockerfile), dockerfile).toBe(true);
      const copied = (await readFile(dockerfile, 'utf8'))
        .split('\n')
        .filter((line) => line.startsWith('COPY ') && !line.includes('--from='))
        .flatMap((line) => line.slice(5).trim().split(/\s+/).slice(0, -1));
      expect(copied.length).toBeGreaterThan(0);
      for (const source of copied) expect(existsSync(join(context, source)), `${build.dockerfile}: COPY ${source}`).toBe(true);
    }
    expect(builds.map((build) => resolve(dirname(COMPOSE), build.context))).toContain(ROOT.replace(/\/$/, ''));
  });

  it("the merchant app's image installs the express the repository is locked to and listens on every interface", async () => {
    const dockerfile = await readFile(join(ROOT, 'examples/notifications/merchant-app.Dockerfile'), 'utf8');
    const lock = JSON.parse(await readFile(join(ROOT, 'package-lock.json'), 'utf8'));
    expect(dockerfile).toContain(`express@${lock.packages['node_modules/express'].version}`);
    expect(dockerfile).toMatch(/^ENV HOST=0\.0\.0\.0/m);
    expect(dockerfile).toMatch(/^CMD \["node", "receiver\.mjs"\]$/m);
  });
});
