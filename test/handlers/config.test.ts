import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../lambda/config.js';

const lambdaEnv = (extra: Record<string, string> = {}) => ({
  TABLE_NAME: 'volumes',
  AWS_REGION: 'eu-west-1',
  CLUSTER_NAME: 'prod',
  CLUSTER_ENDPOINT: 'https://ABC.gr7.eu-west-1.eks.amazonaws.com',
  CLUSTER_CA: Buffer.from('-----BEGIN CERTIFICATE-----\nxyz\n-----END CERTIFICATE-----\n').toString('base64'),
  ...extra,
});

function problemsOf(env: Record<string, string>, runtime: 'lambda' | 'local' = 'lambda'): string[] {
  try {
    loadConfig(env, runtime);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig(lambdaEnv());
    expect(config).toMatchObject({
      tableName: 'volumes',
      clusterName: 'prod',
      kube: { kind: 'eks', endpoint: 'https://ABC.gr7.eu-west-1.eks.amazonaws.com' },
      syncPeriodMs: 60_000,
      maxConcurrentOperations: 10,
      ec2MutatingCallsPerSecond: 4,
      serviceName: 'ebs-attach-detach',
      metricsNamespace: 'EbsAttachDetach',
      logLevel: 'INFO',
      plan: { maxWaitForUnmountMs: 360_000, leaseMarginMs: 15_000, massDetachGuard: { maxFraction: 0.5, minAttached: 10 } },
    });
    expect(config.kube.kind === 'eks' && Buffer.from(config.kube.caData, 'base64').toString()).toContain('BEGIN CERTIFICATE');
    expect(config.region).toBe('eu-west-1');
  });

  it.each([
    ['sync period', { SYNC_PERIOD_SECONDS: '30' }, { syncPeriodMs: 30_000 }],
    ['lease margin', { LEASE_MARGIN_SECONDS: '45' }, { plan: { leaseMarginMs: 45_000 } }],
    ['disabled force detach on timeout', { MAX_WAIT_FOR_UNMOUNT_SECONDS: 'disabled' }, { plan: { maxWaitForUnmountMs: null } }],
    [
      'mass-detach guard',
      { MASS_DETACH_MAX_FRACTION: '0.2', MASS_DETACH_MIN_ATTACHED: '3' },
      { plan: { massDetachGuard: { maxFraction: 0.2, minAttached: 3 } } },
    ],
    ['blank variables as unset', { SYNC_PERIOD_SECONDS: '' }, { syncPeriodMs: 60_000 }],
  ])('reads the %s', (_name, extra, expected) => {
    expect(loadConfig(lambdaEnv(extra))).toMatchObject(expected);
  });

  it.each([
    ['a missing table name', { TABLE_NAME: '' }, 'TABLE_NAME'],
    ['an http endpoint', { CLUSTER_ENDPOINT: 'http://insecure.example.com' }, 'CLUSTER_ENDPOINT: must be an https URL'],
    ['a CA that is not base64', { CLUSTER_CA: 'not base64!' }, 'CLUSTER_CA'],
    ['a negative concurrency', { MAX_CONCURRENT_OPERATIONS: '-1' }, 'MAX_CONCURRENT_OPERATIONS: must be positive'],
    ['a fractional sync period', { SYNC_PERIOD_SECONDS: '1.5' }, 'SYNC_PERIOD_SECONDS: must be a whole number'],
    ['a mass-detach fraction above 1', { MASS_DETACH_MAX_FRACTION: '2' }, 'MASS_DETACH_MAX_FRACTION: must be at most 1'],
  ])('rejects %s with a message naming the variable', (_name, extra, message) => {
    expect(problemsOf(lambdaEnv(extra)).join('\n')).toContain(message);
  });

  it('requires the cluster name and endpoint in Lambda, listing both at once', () => {
    const problems = problemsOf({ TABLE_NAME: 'volumes', AWS_REGION: 'eu-west-1' });
    expect(problems).toEqual([
      expect.stringContaining('CLUSTER_NAME: required'),
      expect.stringContaining('CLUSTER_ENDPOINT: required'),
      expect.stringContaining('CLUSTER_CA: required'),
    ]);
  });

  it('lets a local run use a kubeconfig instead of the EKS endpoint', () => {
    const config = loadConfig({ TABLE_NAME: 'volumes', AWS_REGION: 'us-east-1', KUBECONFIG: '/tmp/kubeconfig' }, 'local');
    expect(config.kube).toEqual({ kind: 'kubeconfig', path: '/tmp/kubeconfig' });
    expect(config.clusterName).toBe('local');
  });
});
