import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CA_CERTIFICATE_FILE,
  CA_KEY_FILE,
  CertificateAuthorityError,
  defaultCaDir,
  openCertificateAuthority,
} from '../../../src/tls/certificate-authority.js';
import { issueServerCertificate, serverNames, tlsHostName } from '../../../src/tls/server-certificate.js';

const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const folders: string[] = [];

async function freshFolder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sandbox-ca-'));
  folders.push(dir);
  // A folder that does not exist yet, two levels down: the CA creates it.
  return join(dir, 'nested', 'ca');
}

afterEach(async () => {
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('the local certificate authority', () => {
  it('is created on first use: a CA certificate valid from before now, and a key only its owner can read', async () => {
    const dir = await freshFolder();
    const ca = await openCertificateAuthority(dir);
    expect(ca.certificatePath).toBe(join(dir, CA_CERTIFICATE_FILE));
    const certificate = new X509Certificate(await readFile(ca.certificatePath));
    expect(certificate.ca).toBe(true);
    expect(certificate.checkIssued(certificate)).toBe(true);
    expect(certificate.verify(certificate.publicKey)).toBe(true);
    expect(new Date(certificate.validFrom).getTime()).toBeLessThan(Date.now() - 3600_000);
    expect(new Date(certificate.validTo).getTime()).toBeGreaterThan(Date.now() + 365 * 24 * 3600_000);
    expect((await stat(join(dir, CA_KEY_FILE))).mode & 0o777).toBe(0o600);
  });

  it('is reused by later starts: the same certificate and key', async () => {
    const dir = await freshFolder();
    const first = await openCertificateAuthority(dir);
    const pem = await readFile(first.certificatePath, 'utf8');
    const key = await readFile(join(dir, CA_KEY_FILE), 'utf8');
    await openCertificateAuthority(dir);
    expect(await readFile(first.certificatePath, 'utf8')).toBe(pem);
    expect(await readFile(join(dir, CA_KEY_FILE), 'utf8')).toBe(key);
  });

  // Four RSA key pairs made at once, and four certificates signed in JavaScript: seconds on a busy 2-core machine, past vitest's 5 s default.
  it('is one authority when several processes create it at the same moment', { timeout: 30_000 }, async () => {
    const dir = await freshFolder();
    const opened = await Promise.all([1, 2, 3, 4].map(() => openCertificateAuthority(dir)));
    const onDisk = new X509Certificate(await readFile(join(dir, CA_CERTIFICATE_FILE)));
    for (const ca of opened) {
      // Whichever copy issues the server certificate, the certificate on disk verifies it.
      const issued = new X509Certificate((await issueServerCertificate(ca, serverNames([]))).cert);
      expect(issued.verify(onDisk.publicKey)).toBe(true);
    }
  });

  it('refuses a damaged key, naming the file', async () => {
    const dir = await freshFolder();
    await openCertificateAuthority(dir);
    await writeFile(join(dir, CA_KEY_FILE), 'not a key');
    const opening = openCertificateAuthority(dir);
    await expect(opening).rejects.toBeInstanceOf(CertificateAuthorityError);
    await expect(opening).rejects.toThrow(join(dir, CA_KEY_FILE));
  });

  it('lives in $XDG_DATA_HOME/payments-sandbox/ca, or ~/.local/share/payments-sandbox/ca', () => {
    expect(defaultCaDir({ XDG_DATA_HOME: '/srv/data' })).toBe('/srv/data/payments-sandbox/ca');
    expect(defaultCaDir({})).toBe(join(homedir(), '.local', 'share', 'payments-sandbox', 'ca'));
  });
});

describe('the server certificate', () => {
  it('covers the loopback names and every --tls-host, for serverAuth, signed by the CA', async () => {
    const ca = await openCertificateAuthority(await freshFolder());
    const certificate = new X509Certificate((await issueServerCertificate(ca, serverNames(['seerbitapi.com', '10.1.2.3']))).cert);
    const authority = new X509Certificate(await readFile(ca.certificatePath));
    expect(certificate.verify(authority.publicKey)).toBe(true);
    expect(certificate.checkIssued(authority)).toBe(true);
    expect(certificate.ca).toBe(false);
    for (const host of ['localhost', 'seerbitapi.com']) expect(certificate.checkHost(host), host).toBe(host);
    for (const ip of ['127.0.0.1', '::1', '10.1.2.3']) expect(certificate.checkIP(ip), ip).toBe(ip);
    expect(certificate.checkHost('example.com')).toBeUndefined();
    expect(certificate.keyUsage).toContain(SERVER_AUTH);
    expect(new Date(certificate.validFrom).getTime()).toBeLessThan(Date.now() - 3600_000);
  });

  it('takes host names and IP addresses, and nothing else', () => {
    expect(tlsHostName('SeerbitAPI.com.')).toBe('seerbitapi.com');
    expect(tlsHostName('::1')).toBe('::1');
    expect(serverNames(['localhost', 'seerbitapi.com', 'SEERBITAPI.COM'])).toEqual(['localhost', '127.0.0.1', '::1', 'seerbitapi.com']);
    for (const bad of ['bad host', '*.seerbitapi.com', 'https://seerbitapi.com', '-x.com', '']) expect(() => tlsHostName(bad), bad).toThrow(/not a host name/);
  });
});
