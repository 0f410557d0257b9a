import { generateKeyPair, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import forge from 'node-forge';

/**
 * Keys and serial numbers for the sandbox's certificates. The keys are made by
 * Node's own crypto (native, a few milliseconds) rather than by node-forge's
 * JavaScript generator (seconds), then handed to node-forge to sign with.
 */

const generate = promisify(generateKeyPair);

/** A new 2048-bit RSA key pair, as node-forge keys: RSA is the one key type every client (Node, curl, Python, Go) accepts. */
export async function newRsaKeyPair(): Promise<forge.pki.rsa.KeyPair> {
  const { privateKey } = await generate('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const key = forge.pki.privateKeyFromPem(privateKey) as forge.pki.rsa.PrivateKey;
  return { privateKey: key, publicKey: forge.pki.setRsaPublicKey(key.n, key.e) };
}

/**
 * A random certificate serial number in hex: 16 bytes, positive (high bit
 * clear) and not starting with a zero byte, as RFC 5280 asks (positive, at
 * most 20 octets) and browsers' unique-serial checks expect.
 */
export function randomSerialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) | 0x10;
  return bytes.toString('hex');
}
