import { describe, expect, it } from 'vitest';
import { type ContextKey, readSettings } from '../../infra/settings.js';
import { TEST_CA } from './synth.js';

/** A context lookup over a plain object, like `app.node.tryGetContext`. */
const lookup = (context: Record<string, unknown>) => (key: ContextKey) => context[key];
const minimal = { clusterName: 'prod', apiEndpoint: 'https://ABC123.gr7.eu-west-1.eks.amazonaws.com', certificateAuthority: TEST_CA };

describe('readSettings', () => {
  it('fills the documented defaults from cluster name, endpoint and CA alone', () => {
    expect(readSettings(lookup(minimal))).toEqual({
      clusterName: 'prod',
      apiEndpoint: 'https://ABC123.gr7.eu-west-1.eks.amazonaws.com',
      certificateAuthority: TEST_CA,
      schedule: 'rate(1 minute)',
      reservedConcurrency: 5,
      syncPeriodSeconds: 60,
      maxWaitForUnmountSeconds: 360,
      eventBusName: 'prod-kubernetes-events',
      clusterTagKey: 'kubernetes.io/cluster/prod',
      alarmTopicArn: undefined,
      fullPassStaleMinutes: 10,
    });
  });

  it('coerces the strings `cdk -c key=value` passes', () => {
    const settings = readSettings(
      lookup({
        ...minimal,
        reservedConcurrency: '8',
        syncPeriodSeconds: '30',
        maxWaitForUnmountSeconds: 'disabled',
        fullPassStaleMinutes: '15',
      }),
    );
    expect(settings).toMatchObject({
      reservedConcurrency: 8,
      syncPeriodSeconds: 30,
      maxWaitForUnmountSeconds: 'disabled',
      fullPassStaleMinutes: 15,
    });
  });

  it('keeps explicit bus name, tag key and alarm topic', () => {
    const settings = readSettings(
      lookup({
        ...minimal,
        eventBusName: 'k8s-events',
        clusterTagKey: 'ebs.csi.aws.com/cluster',
        alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:ops',
      }),
    );
    expect(settings).toMatchObject({
      eventBusName: 'k8s-events',
      clusterTagKey: 'ebs.csi.aws.com/cluster',
      alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:ops',
    });
  });

  it('treats empty placeholders (cdk.json "", `-c key=`) as unset', () => {
    const settings = readSettings(lookup({ ...minimal, clusterTagKey: '', eventBusName: '', alarmTopicArn: '' }));
    expect(settings).toMatchObject({
      eventBusName: 'prod-kubernetes-events',
      clusterTagKey: 'kubernetes.io/cluster/prod',
      alarmTopicArn: undefined,
    });
  });

  it.each([
    ['a missing cluster name', { clusterName: undefined }, 'clusterName'],
    ['a cluster name EKS would refuse', { clusterName: '-bad name' }, 'clusterName'],
    ['a plain-http endpoint', { apiEndpoint: 'http://10.0.0.1' }, 'apiEndpoint'],
    ['a missing CA (the functions cannot trust the API server without it)', { certificateAuthority: '' }, 'certificateAuthority'],
    ['a CA that is not a base64 PEM', { certificateAuthority: 'bm90IGEgY2VydA==' }, 'certificateAuthority'],
    ['a schedule that is not rate() or cron()', { schedule: 'every minute' }, 'schedule'],
    ["reserved concurrency below the SQS pollers' floor", { reservedConcurrency: 1 }, 'reservedConcurrency'],
    ['a fractional sync period', { syncPeriodSeconds: '7.5' }, 'syncPeriodSeconds'],
    ['an unmount wait that is neither seconds nor disabled', { maxWaitForUnmountSeconds: 'never' }, 'maxWaitForUnmountSeconds'],
    ['the default bus as the exporter bus', { eventBusName: 'default' }, 'eventBusName'],
    ['an alarm topic that is not an SNS ARN', { alarmTopicArn: 'ops-channel' }, 'alarmTopicArn'],
  ])('rejects %s, naming the context key', (_behaviour, override, key) => {
    expect(() => readSettings(lookup({ ...minimal, ...override }))).toThrow(new RegExp(`Invalid CDK context[\\s\\S]*${key}`));
  });

  it('reports every invalid key at once', () => {
    expect(() => readSettings(lookup({ clusterName: 'prod', apiEndpoint: 'nope', schedule: 'x' }))).toThrow(
      /apiEndpoint[\s\S]*schedule|schedule[\s\S]*apiEndpoint/,
    );
  });
});
