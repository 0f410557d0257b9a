import { isIP } from 'node:net';
import forge from 'node-forge';
import type { CertificateAuthority } from './certificate-authority.js';
import { newRsaKeyPair, randomSerialNumber } from './keys.js';

/**
 * The HTTPS listener's certificate: issued by the local authority at each
 * start, kept in memory only, for the loopback names and every `--tls-host`.
 */

/** The names every server certificate covers, whatever `--tls-host` adds: the loopback ones. */
export const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'];

/** How long a server certificate is valid; a new one is issued at every start anyway. */
const SERVER_DAYS = 365;

/** A key and certificate in PEM, as `https.createServer` takes them. */
export interface ServerCredentials {
  key: string;
  cert: string;
}

/**
 * `name` as the sandbox compares it (lower case, no trailing dot), when it is a
 * DNS name or an IP address a certificate can carry.
 * @throws Error saying what a host name may be, for `--tls-host` and `tlsHosts`.
 */
export function tlsHostName(name: string): string {
  const host = name.trim().toLowerCase().replace(/\.$/, '');
  if (isIP(host)) return host;
  const label = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
  if (host.length > 253 || !host.split('.').every((part) => label.test(part))) {
    throw new Error(`"${name}" is not a host name (letters, digits, hyphens and dots) nor an IP address`);
  }
  return host;
}

/** The names a server certificate covers: the loopback names, then `tlsHosts`, without repeats. */
export function serverNames(tlsHosts: readonly string[]): string[] {
  return [...new Set([...LOOPBACK_NAMES, ...tlsHosts.map(tlsHostName)])];
}

/**
 * Issues a server certificate for `names` (see `serverNames`), signed by `ca`.
 * It carries what strict verifiers ask for (Go, Python 3.13's X509_STRICT):
 * subjectAltName with DNS and IP entries (the common name is ignored by all of
 * them), serverAuth, a key usage, and both key identifiers.
 */
export async function issueServerCertificate(ca: CertificateAuthority, names: readonly string[]): Promise<ServerCredentials> {
  const keys = await newRsaKeyPair();
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = keys.publicKey;
  certificate.serialNumber = randomSerialNumber();
  const now = Date.now();
  // A day in the past, so that a client whose clock is a little behind still accepts it.
  certificate.validity.notBefore = new Date(now - 24 * 3600_000);
  const notAfter = Math.min(now + SERVER_DAYS * 24 * 3600_000, ca.certificate.validity.notAfter.getTime());
  certificate.validity.notAfter = new Date(notAfter);
  certificate.setSubject([{ name: 'commonName', value: names.find((name) => !isIP(name)) ?? 'localhost' }]);
  certificate.setIssuer(ca.certificate.subject.attributes);
  certificate.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames: names.map((name) => (isIP(name) ? { type: 7, ip: name } : { type: 2, value: name })) },
    { name: 'subjectKeyIdentifier' },
    { name: 'authorityKeyIdentifier', keyIdentifier: ca.certificate.generateSubjectKeyIdentifier().getBytes() },
  ]);
  certificate.sign(ca.privateKey, forge.md.sha256.create());
  return { key: forge.pki.privateKeyToPem(keys.privateKey), cert: forge.pki.certificateToPem(certificate) };
}
