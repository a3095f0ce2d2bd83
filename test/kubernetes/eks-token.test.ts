import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EKS_TOKEN_PREFIX, eksToken, eksTokenProvider, type AwsCredentials } from '../../lambda/adapters/kubernetes/eks-token.js';

const credentials: AwsCredentials = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  sessionToken: 'tok/en+with=chars',
};
const access = { clusterName: 'prod-cluster', region: 'eu-west-1', credentials: () => Promise.resolve(credentials) };
const signedAt = new Date('2025-03-04T05:06:07Z');

function decode(token: string): URL {
  expect(token.startsWith(EKS_TOKEN_PREFIX)).toBe(true);
  const payload = token.slice(EKS_TOKEN_PREFIX.length);
  expect(payload).toMatch(/^[A-Za-z0-9_-]+$/); // base64url, no padding
  return new URL(Buffer.from(payload, 'base64url').toString('utf8'));
}

/** An independent SigV4 check, as STS performs it on the URL it receives. */
function expectedSignature(url: URL, clusterName: string, secret: string): string {
  const rfc3986 = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const query = [...url.searchParams.entries()]
    .filter(([k]) => k !== 'X-Amz-Signature')
    .map(([k, v]) => `${rfc3986(k)}=${rfc3986(v)}`)
    .sort()
    .join('&');
  const headers = `host:${url.host}\nx-k8s-aws-id:${clusterName}\n`;
  const emptyHash = createHash('sha256').update('').digest('hex');
  const canonical = ['GET', '/', query, headers, 'host;x-k8s-aws-id', emptyHash].join('\n');
  const date = url.searchParams.get('X-Amz-Date') ?? '';
  const scope = (url.searchParams.get('X-Amz-Credential') ?? '').split('/').slice(1).join('/');
  const toSign = ['AWS4-HMAC-SHA256', date, scope, createHash('sha256').update(canonical).digest('hex')].join('\n');
  const [day, region, service] = scope.split('/');
  let key: Buffer = createHmac('sha256', `AWS4${secret}`)
    .update(day ?? '')
    .digest();
  for (const part of [region, service, 'aws4_request'])
    key = createHmac('sha256', key)
      .update(part ?? '')
      .digest();
  return createHmac('sha256', key).update(toSign).digest('hex');
}

describe('EKS token', () => {
  it('is k8s-aws-v1. + base64url of a presigned STS GetCallerIdentity URL for the region', async () => {
    const url = decode(await eksToken(access, signedAt));
    expect(url.origin).toBe('https://sts.eu-west-1.amazonaws.com');
    expect(url.pathname).toBe('/');
    expect(url.searchParams.get('Action')).toBe('GetCallerIdentity');
    expect(url.searchParams.get('Version')).toBe('2011-06-15');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('60');
    expect(url.searchParams.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(url.searchParams.get('X-Amz-Date')).toBe('20250304T050607Z');
    expect(url.searchParams.get('X-Amz-Credential')).toBe('AKIDEXAMPLE/20250304/eu-west-1/sts/aws4_request');
    expect(url.searchParams.get('X-Amz-Security-Token')).toBe(credentials.sessionToken);
    expect(url.searchParams.get('X-Amz-SignedHeaders')?.split(';')).toContain('x-k8s-aws-id');
  });

  it('carries a SigV4 signature STS can verify over host and the cluster-name header', async () => {
    const url = decode(await eksToken(access, signedAt));
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('host;x-k8s-aws-id');
    expect(url.searchParams.get('X-Amz-Signature')).toBe(expectedSignature(url, access.clusterName, credentials.secretAccessKey));
  });

  it('binds the cluster name: another cluster gets another signature', async () => {
    const one = decode(await eksToken(access, signedAt)).searchParams.get('X-Amz-Signature');
    const other = decode(await eksToken({ ...access, clusterName: 'staging' }, signedAt)).searchParams.get('X-Amz-Signature');
    expect(other).not.toBe(one);
  });
});

describe('EKS token provider (refreshed before the 15-minute validity ends)', () => {
  function clockAt(start: number) {
    const clock = { t: start, now: () => clock.t };
    return clock;
  }
  let signings = 0;
  const counted = { ...access, credentials: () => ((signings += 1), Promise.resolve(credentials)) };

  it.each([
    ['reuses the token within 10 minutes', 10 * 60_000 - 1, false],
    ['signs a new token after 10 minutes', 10 * 60_000, true],
  ])('%s', async (_behaviour, later, renewed) => {
    const clock = clockAt(signedAt.getTime());
    const token = eksTokenProvider({ ...counted, now: clock.now });
    const first = await token();
    clock.t += later;
    const second = await token();
    expect(second !== first).toBe(renewed);
    if (renewed) expect(decode(second).searchParams.get('X-Amz-Date')).not.toBe(decode(first).searchParams.get('X-Amz-Date'));
  });

  it('signs again a minute before the credentials that signed the token expire', async () => {
    const clock = clockAt(signedAt.getTime());
    const expiring = {
      ...access,
      credentials: () => Promise.resolve({ ...credentials, expiration: new Date(signedAt.getTime() + 5 * 60_000) }),
    };
    const token = eksTokenProvider({ ...expiring, now: clock.now });
    const first = await token();
    clock.t += 4 * 60_000 - 1;
    expect(await token()).toBe(first);
    clock.t += 1;
    expect(await token()).not.toBe(first);
  });

  it('shares one signing between concurrent callers', async () => {
    const clock = clockAt(signedAt.getTime());
    const token = eksTokenProvider({ ...counted, now: clock.now });
    signings = 0;
    const [a, b] = await Promise.all([token(), token()]);
    expect(a).toBe(b);
    expect(signings).toBe(1);
  });

  it('does not keep a failed signing: the next call tries again', async () => {
    let fail = true;
    const flaky = { ...access, credentials: () => (fail ? Promise.reject(new Error('no credentials')) : Promise.resolve(credentials)) };
    const token = eksTokenProvider({ ...flaky, now: () => signedAt.getTime() });
    await expect(token()).rejects.toThrow('no credentials');
    fail = false;
    await expect(token()).resolves.toMatch(/^k8s-aws-v1\./);
  });
});
