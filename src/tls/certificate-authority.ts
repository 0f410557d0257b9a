import { randomBytes } from 'node:crypto';
import { chmod, link, mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import forge from 'node-forge';
import { CertificateAuthorityError } from './ca-folder.js';
import { newRsaKeyPair, randomSerialNumber } from './keys.js';

export { CertificateAuthorityError, defaultCaDir } from './ca-folder.js';

/**
 * The sandbox's local certificate authority: a key and a self-signed CA
 * certificate kept in a per-user folder, created on first use and reused
 * afterwards, so that a client told to trust it once (NODE_EXTRA_CA_CERTS,
 * REQUESTS_CA_BUNDLE, SSL_CERT_FILE, curl --cacert) keeps trusting every
 * sandbox started later (README, "HTTPS and proxy mode").
 */

/** The CA certificate's file name in the CA folder: the file clients are told to trust. */
export const CA_CERTIFICATE_FILE = 'ca.pem';

/** The CA key's file name in the CA folder (mode 0600). */
export const CA_KEY_FILE = 'ca-key.pem';

/** How long a new CA certificate is valid. */
const CA_YEARS = 10;

/** How long to wait for the certificate of a CA another process is creating at the same moment. */
const CONCURRENT_CREATION_WAIT_MS = 2_000;

/** An opened certificate authority, ready to issue server certificates. */
export interface CertificateAuthority {
  /** the folder it lives in */
  dir: string;
  /** the CA certificate file (PEM), to hand to clients */
  certificatePath: string;
  certificate: forge.pki.Certificate;
  privateKey: forge.pki.rsa.PrivateKey;
}

/**
 * Opens the authority in `dir`, creating the folder, the key and the
 * certificate when there is none yet. Two processes creating it at the same
 * moment end up with the same authority: the key is put in place with an
 * exclusive link, and the loser reads the winner's files.
 * @throws CertificateAuthorityError naming the file that cannot be used.
 */
export async function openCertificateAuthority(dir: string): Promise<CertificateAuthority> {
  const certificatePath = join(dir, CA_CERTIFICATE_FILE);
  const keyPath = join(dir, CA_KEY_FILE);
  const keyPem = (await readIfPresent(keyPath)) ?? (await create(dir, keyPath, certificatePath));
  const certificatePem = await readCertificate(certificatePath, keyPath);
  return { dir, certificatePath, ...parse(keyPem, keyPath, certificatePem, certificatePath) };
}

// Writes a new authority; answers the key that ended up in place (ours, or a concurrent creator's).
async function create(dir: string, keyPath: string, certificatePath: string): Promise<string> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new CertificateAuthorityError(`cannot create the CA folder ${dir}: ${(error as Error).message}`);
  }
  const keys = await newRsaKeyPair();
  const certificate = caCertificate(keys);
  const keyPem = forge.pki.privateKeyToPem(keys.privateKey);
  const suffix = `.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(keyPath + suffix, keyPem, { mode: 0o600, flag: 'wx' });
  await chmod(keyPath + suffix, 0o600);
  await writeFile(certificatePath + suffix, forge.pki.certificateToPem(certificate), { flag: 'wx' });
  try {
    await link(keyPath + suffix, keyPath);
  } catch (error) {
    await Promise.all([unlink(keyPath + suffix), unlink(certificatePath + suffix)]);
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readFile(keyPath, 'utf8');
    throw new CertificateAuthorityError(`cannot write ${keyPath}: ${(error as Error).message}`);
  }
  // The certificate goes in place after the key: a reader that finds the key waits for it.
  await rename(certificatePath + suffix, certificatePath);
  await unlink(keyPath + suffix);
  return keyPem;
}

function caCertificate(keys: forge.pki.rsa.KeyPair): forge.pki.Certificate {
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = keys.publicKey;
  certificate.serialNumber = randomSerialNumber();
  const now = Date.now();
  // A day in the past, so that a client whose clock is a little behind still accepts it.
  certificate.validity.notBefore = new Date(now - 24 * 3600_000);
  certificate.validity.notAfter = new Date(now + CA_YEARS * 365 * 24 * 3600_000);
  const name = [
    { name: 'commonName', value: 'payments-sandbox local CA' },
    { name: 'organizationName', value: 'payments-sandbox (local development only)' },
  ];
  certificate.setSubject(name);
  certificate.setIssuer(name);
  certificate.setExtensions([
    { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  certificate.sign(keys.privateKey, forge.md.sha256.create());
  return certificate;
}

async function readIfPresent(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CertificateAuthorityError(`cannot read ${path}: ${(error as Error).message}`);
  }
}

// The certificate lands a moment after the key when another process is creating the authority.
async function readCertificate(certificatePath: string, keyPath: string): Promise<string> {
  const giveUp = Date.now() + CONCURRENT_CREATION_WAIT_MS;
  for (;;) {
    const pem = await readIfPresent(certificatePath);
    if (pem !== undefined) return pem;
    if (Date.now() > giveUp) {
      throw new CertificateAuthorityError(`${certificatePath} is missing beside ${keyPath}: remove the folder to create a new authority`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function parse(keyPem: string, keyPath: string, certificatePem: string, certificatePath: string) {
  let privateKey: forge.pki.rsa.PrivateKey;
  let certificate: forge.pki.Certificate;
  try {
    privateKey = forge.pki.privateKeyFromPem(keyPem) as forge.pki.rsa.PrivateKey;
  } catch (error) {
    throw new CertificateAuthorityError(`${keyPath} is not an RSA private key in PEM: ${(error as Error).message}`);
  }
  try {
    certificate = forge.pki.certificateFromPem(certificatePem);
  } catch (error) {
    throw new CertificateAuthorityError(`${certificatePath} is not a certificate in PEM: ${(error as Error).message}`);
  }
  const publicKey = certificate.publicKey as forge.pki.rsa.PublicKey;
  if (!publicKey.n || publicKey.n.compareTo(privateKey.n) !== 0) {
    throw new CertificateAuthorityError(`${certificatePath} does not belong to the key ${keyPath}: remove the folder to create a new authority`);
  }
  if (certificate.validity.notAfter.getTime() < Date.now() + 24 * 3600_000) {
    throw new CertificateAuthorityError(`${certificatePath} expires on ${certificate.validity.notAfter.toISOString()}: remove the folder to create a new authority`);
  }
  return { certificate, privateKey };
}
