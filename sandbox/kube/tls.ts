/**
 * A throwaway CA and a server certificate it signs, for `127.0.0.1`, `::1` and `localhost`
 * (plus a custom host). ECDSA P-256 through WebCrypto takes milliseconds; the pair is still
 * cached per process so that many sandboxes in one test file share it.
 */
import 'reflect-metadata'; // @peculiar/x509 resolves its services through tsyringe, which needs it
import * as x509 from '@peculiar/x509';
import { isIP } from 'node:net';

export interface TlsMaterial {
  caPem: string;
  certPem: string;
  keyPem: string;
}

const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const day = 24 * 60 * 60 * 1000;
const cache = new Map<string, Promise<TlsMaterial>>();

function serial(): string {
  // Positive 16-byte serial, as RFC 5280 asks.
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0] as number) & 0x7f;
  return Buffer.from(bytes).toString('hex');
}

async function generate(hosts: string[]): Promise<TlsMaterial> {
  const notBefore = new Date(Date.now() - day);
  const notAfter = new Date(Date.now() + 365 * day);
  const caKeys = await crypto.subtle.generateKey(algorithm, false, ['sign', 'verify']);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: 'CN=kube-sandbox-ca',
    notBefore,
    notAfter,
    signingAlgorithm: algorithm,
    keys: caKeys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const serverKeys = await crypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const names = hosts.map((h) => (isIP(h) ? { type: 'ip' as const, value: h } : { type: 'dns' as const, value: h }));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: 'CN=kube-apiserver',
    issuer: ca.subject,
    notBefore,
    notAfter,
    signingAlgorithm: algorithm,
    publicKey: serverKeys.publicKey,
    signingKey: caKeys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(names),
      await x509.AuthorityKeyIdentifierExtension.create(ca),
    ],
  });
  const pkcs8 = await crypto.subtle.exportKey('pkcs8', serverKeys.privateKey);
  return { caPem: ca.toString('pem'), certPem: cert.toString('pem'), keyPem: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY') };
}

/** TLS material for a server reachable as `host` (and always as 127.0.0.1, ::1, localhost). */
export function tlsMaterial(host = '127.0.0.1'): Promise<TlsMaterial> {
  const hosts = [...new Set(['127.0.0.1', '::1', 'localhost', host])].filter((h) => h !== '0.0.0.0' && h !== '::');
  const key = hosts.join(',');
  let material = cache.get(key);
  if (!material) {
    material = generate(hosts);
    cache.set(key, material);
  }
  return material;
}
