/**
 * Bearer tokens for an EKS cluster, as aws-iam-authenticator and `aws eks get-token` make
 * them: a SigV4-presigned STS GetCallerIdentity URL that carries the cluster name in the
 * signed header `x-k8s-aws-id`, base64url-encoded (no padding) behind `k8s-aws-v1.`.
 * EKS accepts such a token for 15 minutes after its signing time whatever X-Amz-Expires
 * says; we sign with 60 s like the upstream tools and regenerate well before 15 minutes.
 */
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';

export const EKS_TOKEN_PREFIX = 'k8s-aws-v1.';
const CLUSTER_ID_HEADER = 'x-k8s-aws-id';
const PRESIGN_EXPIRES_SECONDS = 60;
/** Regenerate after 10 of the 15 minutes, leaving room for clock skew and a slow pass. */
const DEFAULT_TOKEN_REFRESH_MS = 10 * 60_000;
const CREDENTIALS_MARGIN_MS = 60_000;

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
}

/** What `fromNodeProviderChain()` returns: a memoizing provider of credentials. */
type CredentialsProvider = () => Promise<AwsCredentials>;

export interface EksTokenOptions {
  clusterName: string;
  region: string;
  credentials: CredentialsProvider;
  /** Epoch milliseconds; injectable for tests. */
  now?: () => number;
  refreshAfterMs?: number;
}

export type TokenProvider = () => Promise<string>;

/** The presigned GetCallerIdentity URL for `clusterName`, signed at `signingDate`. */
async function presignGetCallerIdentity(
  options: Pick<EksTokenOptions, 'clusterName' | 'region' | 'credentials'>,
  signingDate: Date,
): Promise<URL> {
  const hostname = `sts.${options.region}.amazonaws.com`;
  const signer = new SignatureV4({ credentials: options.credentials, region: options.region, service: 'sts', sha256: Sha256 });
  const presigned = await signer.presign(
    {
      method: 'GET',
      protocol: 'https:',
      hostname,
      path: '/',
      query: { Action: 'GetCallerIdentity', Version: '2011-06-15' },
      headers: { host: hostname, [CLUSTER_ID_HEADER]: options.clusterName },
    },
    { expiresIn: PRESIGN_EXPIRES_SECONDS, signingDate },
  );
  const url = new URL(`https://${hostname}/`);
  for (const [name, value] of Object.entries(presigned.query ?? {})) {
    for (const one of [value ?? ''].flat()) url.searchParams.append(name, one);
  }
  return url;
}

export async function eksToken(
  options: Pick<EksTokenOptions, 'clusterName' | 'region' | 'credentials'>,
  signingDate: Date,
): Promise<string> {
  const url = await presignGetCallerIdentity(options, signingDate);
  return EKS_TOKEN_PREFIX + Buffer.from(url.toString(), 'utf8').toString('base64url');
}

/**
 * A token provider that reuses one token until `refreshAfterMs` has passed since it was
 * signed, or until a minute before the credentials that signed it expire (a presigned URL
 * is only as good as its session). Concurrent callers share one signing.
 */
export function eksTokenProvider(options: EksTokenOptions): TokenProvider {
  const now = options.now ?? Date.now;
  const refreshAfterMs = options.refreshAfterMs ?? DEFAULT_TOKEN_REFRESH_MS;
  let cached: { token: Promise<string>; renewAt: number } | undefined;
  const sign = async (at: number, entry: { renewAt: number }): Promise<string> => {
    const credentials = await options.credentials();
    if (credentials.expiration !== undefined) {
      entry.renewAt = Math.min(entry.renewAt, credentials.expiration.getTime() - CREDENTIALS_MARGIN_MS);
    }
    return eksToken({ ...options, credentials: () => Promise.resolve(credentials) }, new Date(at));
  };
  return () => {
    const at = now();
    if (cached === undefined || at >= cached.renewAt) {
      const entry = { renewAt: at + refreshAfterMs };
      const token = sign(at, entry);
      const fresh = Object.assign(entry, { token });
      cached = fresh;
      // A failed signing must not be served from the cache.
      token.catch(() => {
        if (cached === fresh) cached = undefined;
      });
    }
    return cached.token;
  };
}
