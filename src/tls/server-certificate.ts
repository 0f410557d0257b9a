import { isIP } from 'node:net';
import forge from 'node-forge';
import type { CertificateAuthority } from './certificate-authority.js';
import { newRsaKeyPair, randomSerialNumber } from './keys.js';

export { LOOPBACK_NAMES, serverNames, tlsHostName } from './host-names.js';

/** How long a server certificate is valid; a new one is issued at every start anyway. */
const SERVER_DAYS = 365;

/** A key and certificate in PEM, as `https.createServer` takes them. */
export interface ServerCredentials {
  key: string;
  cert: string;
}

/**
 * The HTTPS listener's certificate: issued by the local authority at each
 * start, kept in memory only, for the loopback names and every `--tls-host`.
 */

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
