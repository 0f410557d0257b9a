import { describe, expect, it } from 'vitest';
import { bannerKeyPair, bannerRecord, bannerText, noticeLine, SERVING, wrap, type BannerFacts } from '../../../src/cli/banner.js';

/** The start-up banner, as text and as one JSON record with the same facts (docs/decisions.md#d67-json-stdout). */

const FACTS: BannerFacts = {
  origin: 'http://127.0.0.1:4010',
  publicUrl: 'http://127.0.0.1:4010',
  store: '/tmp/sb/payments-sandbox.json',
  sync: 'full',
  seed: '5eed',
  keys: { publicKey: 'SBTESTPUBK_abc', secretKey: 'SBTESTSECK_def' },
  warnings: [],
};

describe('bannerRecord', () => {
  it('is one JSON line in pino\'s shape, every fact a field', () => {
    const line = bannerRecord(FACTS, 1_700_000_000_000);
    expect(line).not.toContain('\n');
    expect(JSON.parse(line)).toEqual({
      level: 30,
      time: 1_700_000_000_000,
      msg: SERVING,
      apiBase: 'http://127.0.0.1:4010/api/v2',
      linksBase: 'http://127.0.0.1:4010',
      listening: null,
      controlApi: 'http://127.0.0.1:4010/__sandbox',
      health: 'http://127.0.0.1:4010/__sandbox/health',
      dashboard: 'http://127.0.0.1:4010/__sandbox/dashboard/',
      apiReference: 'http://127.0.0.1:4010/__sandbox/docs',
      store: '/tmp/sb/payments-sandbox.json',
      sync: 'full',
      seed: '5eed',
      scenario: null,
      https: null,
      webhookUrl: null,
      publicKey: 'SBTESTPUBK_abc',
      secretKey: 'SBTESTSECK_def',
      tokenRequest: { method: 'POST', url: 'http://127.0.0.1:4010/api/v2/encrypt/keys', body: { key: 'SBTESTSECK_def.SBTESTPUBK_abc' } },
      warnings: [],
    });
  });

  it('in memory, on every interface, with HTTPS, a scenario, a webhook URL and a warning', () => {
    const record = JSON.parse(
      bannerRecord({
        ...FACTS,
        origin: 'http://localhost:4010',
        publicUrl: 'http://localhost:4010',
        everyInterface: 'http://0.0.0.0:4010',
        store: undefined,
        sync: undefined,
        scenario: 'transaction-failed',
        https: { url: 'https://localhost:4443', tlsHosts: ['seerbitapi.com'], proxyUrl: 'http://localhost:4080', caCertificate: '/ca/ca.pem' },
        webhookUrl: 'http://127.0.0.1:3000/webhook',
        warnings: ['the control API is open to the network'],
      }),
    );
    expect(record).toMatchObject({
      listening: 'http://0.0.0.0:4010',
      store: null,
      sync: null,
      scenario: 'transaction-failed',
      https: { apiBase: 'https://localhost:4443/api/v2', certificateNames: ['localhost', '127.0.0.1', '::1', 'seerbitapi.com'], proxy: 'http://localhost:4080', proxyHosts: ['seerbitapi.com'], caCertificate: '/ca/ca.pem' },
      webhookUrl: 'http://127.0.0.1:3000/webhook',
      warnings: ['the control API is open to the network'],
    });
  });

  it('stays one line, and valid JSON, whatever a path holds (line separators JSON.stringify leaves raw)', () => {
    const store = '/tmp/odd\u2028name\n\u001b[2J/sb.json';
    const line = bannerRecord({ ...FACTS, store });
    expect(line).not.toMatch(/[\n\u2028\u001b]/);
    expect(JSON.parse(line).store).toBe(store);
  });
});

describe('bannerText', () => {
  it('says the same facts for a person, warnings first and wrapped', () => {
    const warning = 'the folder /tmp/sb of the store file /tmp/sb/payments-sandbox.json is writable by every user (mode 0777): anyone here can read or change it';
    const text = bannerText({ ...FACTS, warnings: [warning] });
    expect(text.indexOf('WARNING:')).toBeLessThan(text.indexOf('API base'));
    expect(text).toContain('  API base      http://127.0.0.1:4010/api/v2\n');
    expect(text).toContain('  store         /tmp/sb/payments-sandbox.json\n  sync          full: ');
    expect(text).toContain(`curl -s http://127.0.0.1:4010/api/v2/encrypt/keys -H 'Content-Type: application/json' -d '{"key":"SBTESTSECK_def.SBTESTPUBK_abc"}'`);
    for (const line of text.split('\n').filter((one) => one.startsWith('  WARNING:') || one.startsWith('           '))) expect(line.length).toBeLessThanOrEqual(11 + 72);
    expect(text.replace(/\s+/g, ' ')).toContain(warning);
  });
});

describe('noticeLine', () => {
  it('is a pino-shaped record in JSON, and a prefixed line for a person', () => {
    expect(JSON.parse(noticeLine('json', 'SIGTERM, closing', 5))).toEqual({ level: 30, time: 5, msg: 'SIGTERM, closing' });
    expect(noticeLine('pretty', 'SIGTERM, closing')).toBe('payments-sandbox: SIGTERM, closing');
  });
});

describe('wrap', () => {
  it('breaks between words at the width, and gives a longer word a line of its own', () => {
    expect(wrap('aa bb cc', 5)).toEqual(['aa bb', 'cc']);
    expect(wrap('a verylongword b', 4)).toEqual(['a', 'verylongword', 'b']);
    expect(wrap('', 10)).toEqual([]);
  });
});

describe('bannerKeyPair', () => {
  const sample = () => ({ publicKey: 'SBTESTPUBK_new', secretKey: 'SBTESTSECK_new' });

  it('on a store with merchants, shows the first still bound: the same pair at each start', () => {
    const merchants = [
      { publicKey: 'SBTESTPUBK_reset', secretKey: 'SBTESTSECK_reset', released: true },
      { publicKey: 'SBTESTPUBK_first', secretKey: 'SBTESTSECK_first' },
      { publicKey: 'SBTESTPUBK_second', secretKey: 'SBTESTSECK_second' },
    ];
    expect(bannerKeyPair(merchants, sample)).toEqual({ keys: { publicKey: 'SBTESTPUBK_first', secretKey: 'SBTESTSECK_first' }, keysStored: true });
    expect(bannerKeyPair(merchants.slice(0, 1), sample).keys.publicKey).toBe('SBTESTPUBK_reset');
  });

  it('on an empty store, a new pair, and the banner says how it becomes the stable one', () => {
    expect(bannerKeyPair([], sample)).toEqual({ keys: sample(), keysStored: false });
    expect(bannerText(FACTS)).toContain('A test key pair (any SBTESTPUBK_/SBTESTSECK_ pair works; once used, each start on this store shows it):');
    expect(bannerText({ ...FACTS, keysStored: true })).toContain('The first merchant this store holds, the same at each start on it:\n    public key  SBTESTPUBK_abc');
  });
});
