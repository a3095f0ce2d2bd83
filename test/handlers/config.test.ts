import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, SETTING_DEFAULTS } from '../../lambda/config.js';
import { SETTINGS } from '../../lambda/settings.js';

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
      ec2Budget: {
        tableName: 'volumes',
        sizes: { AttachVolume: { ratePerSecond: 4, burst: 20 }, DetachVolume: { ratePerSecond: 4, burst: 20 } },
      },
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
    [
      'a budget table shared with other clusters, and a fractional rate',
      { EC2_BUDGET_TABLE_NAME: 'shared-budget', EC2_ATTACH_VOLUME_RATE: '2.5' },
      { ec2Budget: { tableName: 'shared-budget', sizes: { AttachVolume: { ratePerSecond: 2.5, burst: 20 } } } },
    ],
    ['disabled force detach on timeout', { MAX_WAIT_FOR_UNMOUNT_SECONDS: 'disabled' }, { plan: { maxWaitForUnmountMs: null } }],
    [
      'mass-detach guard',
      { MASS_DETACH_MAX_FRACTION: '0.2', MASS_DETACH_MIN_ATTACHED: '3' },
      { plan: { massDetachGuard: { maxFraction: 0.2, minAttached: 3 } } },
    ],
    ['blank variables as unset', { SYNC_PERIOD_SECONDS: '' }, { syncPeriodMs: 60_000 }],
    ['stuck-attach limit', { STUCK_ATTACH_SECONDS: '120' }, { plan: { stuckAttachMs: 120_000 } }],
    ['per-pass attach wait', { MAX_ATTACH_WAIT_SECONDS: '20' }, { maxAttachWaitMs: 20_000 }],
    ['writes on by default', {}, { writes: true }],
    ['writes off: every pass a dry run (the shadow step)', { WRITES: 'off' }, { writes: false }],
    ['attacher mode alone as a shadow (writes off)', { OPERATING_MODE: 'attacher' }, { writes: false, sidecarGone: false }],
    ['attacher mode behind the fence: writes on', { OPERATING_MODE: 'attacher', LEASE_FENCE: 'on' }, { writes: true }],
    [
      'attacher mode with no sidecar left: writes on',
      { OPERATING_MODE: 'attacher', SIDECAR_GONE: 'true' },
      { writes: true, sidecarGone: true },
    ],
    [
      'lease fence with its defaults: one identity for every function of the controller',
      { LEASE_FENCE: 'on' },
      {
        leaseFence: {
          name: 'external-attacher-leader-ebs-csi-aws-com',
          namespace: 'kube-system',
          identity: 'ebs-attach-detach/prod',
          durationSeconds: 180,
        },
      },
    ],
    [
      'lease fence of another namespace and identity',
      { LEASE_FENCE: 'on', LEASE_FENCE_NAMESPACE: 'ebs', LEASE_FENCE_IDENTITY: 'attach-controller', LEASE_FENCE_DURATION_SECONDS: '300' },
      { leaseFence: { namespace: 'ebs', identity: 'attach-controller', durationSeconds: 300 } },
    ],
  ])('reads the %s', (_name, extra, expected) => {
    expect(loadConfig(lambdaEnv(extra))).toMatchObject(expected);
  });

  it.each([
    ['a missing table name', { TABLE_NAME: '' }, 'TABLE_NAME: required: the DynamoDB table'],
    ['an http endpoint', { CLUSTER_ENDPOINT: 'http://insecure.example.com' }, 'CLUSTER_ENDPOINT: an https URL'],
    ['a CA that is not base64', { CLUSTER_CA: 'not base64!' }, 'CLUSTER_CA: base64'],
    [
      'a negative concurrency',
      { MAX_CONCURRENT_OPERATIONS: '-1' },
      'MAX_CONCURRENT_OPERATIONS: a whole number above 0 (e.g. 10); got "-1"',
    ],
    [
      'a fractional sync period',
      { SYNC_PERIOD_SECONDS: '1.5' },
      'SYNC_PERIOD_SECONDS: a whole number of seconds above 0 (e.g. 60); got "1.5"',
    ],
    ['a mass-detach fraction above 1', { MASS_DETACH_MAX_FRACTION: '2' }, 'MASS_DETACH_MAX_FRACTION: a fraction above 0 and at most 1'],
    [
      'a timeout that is neither seconds nor disabled',
      { MAX_WAIT_FOR_UNMOUNT_SECONDS: 'abc' },
      'MAX_WAIT_FOR_UNMOUNT_SECONDS: a whole number of seconds above 0 (e.g. 360) or "disabled"; got "abc"',
    ],
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

  it.each(['lambda', 'local'] as const)(
    '%s: refuses to start as a second live attacher (attacher mode, WRITES=on, no fence, sidecar not gone)',
    (runtime) => {
      const env = { ...lambdaEnv({ OPERATING_MODE: 'attacher', WRITES: 'on' }) };
      expect(problemsOf(env, runtime)).toEqual([
        expect.stringMatching(/^WRITES: on in attacher mode needs LEASE_FENCE=on .* or SIDECAR_GONE=true/),
      ]);
      expect(problemsOf({ ...env, LEASE_FENCE: 'on' }, runtime)).toEqual([]);
      expect(problemsOf({ ...env, SIDECAR_GONE: 'true' }, runtime)).toEqual([]);
    },
  );

  it('knows no KMS key unless KMS_KEY_ARNS lists some (the role may grant on none then), and takes a comma-separated list', () => {
    expect(loadConfig(lambdaEnv()).kmsKeyArns).toEqual([]);
    const keys = [
      'arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab',
      'arn:aws:kms:eu-west-1:111122223333:key/mrk-1',
    ];
    expect(loadConfig(lambdaEnv({ KMS_KEY_ARNS: ` ${keys[0]}, ${keys[1]} ` })).kmsKeyArns).toEqual(keys);
  });

  it('holds no lease fence unless LEASE_FENCE=on', () => {
    expect(loadConfig(lambdaEnv()).leaseFence).toBeUndefined();
  });

  it('lets a local run use a kubeconfig instead of the EKS endpoint', () => {
    const config = loadConfig({ TABLE_NAME: 'volumes', AWS_REGION: 'us-east-1', KUBECONFIG: '/tmp/kubeconfig' }, 'local');
    expect(config.kube).toEqual({ kind: 'kubeconfig', path: '/tmp/kubeconfig' });
    expect(config.clusterName).toBe('local');
  });

  /** A value each setting refuses (settings that take any text refuse only being required and missing). */
  const REFUSED: Record<string, string> = {
    CLUSTER_ENDPOINT: 'http://x',
    CLUSTER_CA: '%%',
    AWS_ENDPOINT_URL_EC2: 'not a url',
    AWS_ENDPOINT_URL_DYNAMODB: 'not a url',
    SYNC_PERIOD_SECONDS: 'soon',
    MAX_WAIT_FOR_UNMOUNT_SECONDS: '-5',
    LEASE_MARGIN_SECONDS: '0',
    MAX_CONCURRENT_OPERATIONS: 'many',
    EC2_ATTACH_VOLUME_RATE: '0',
    EC2_DETACH_VOLUME_BURST: '2.5',
    MASS_DETACH_MAX_FRACTION: '0',
    MASS_DETACH_MIN_ATTACHED: '-1',
    STUCK_ATTACH_SECONDS: 'x',
    MAX_ATTACH_WAIT_SECONDS: '1e',
    POWERTOOLS_LOG_LEVEL: 'LOUD',
    LEASE_FENCE: 'yes',
    LEASE_FENCE_DURATION_SECONDS: '15',
    WRITES: 'dry',
    SIDECAR_GONE: 'yes',
    KMS_KEY_ARNS: 'alias/aws/ebs',
  };

  it.each(Object.entries(REFUSED))('%s: the problem says what is expected, with an example, and what it got', (name, value) => {
    const spec = SETTINGS.find((s) => s.name === name)!;
    expect(spec.expected).toMatch(/\(e\.g\. .+\)/);
    expect(problemsOf(lambdaEnv({ [name]: value }))).toEqual([`${name}: ${spec.expected}; got ${JSON.stringify(value)}`]);
  });

  it('every setting with a default is in SETTING_DEFAULTS, spelled as its variable takes it', () => {
    const withDefaults = SETTINGS.filter((s) => s.default !== undefined);
    expect(SETTING_DEFAULTS).toEqual(Object.fromEntries(withDefaults.map((s) => [s.name, s.default])));
    expect(loadConfig(lambdaEnv(SETTING_DEFAULTS))).toEqual(loadConfig(lambdaEnv()));
  });
});
