import { App, Validations } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { addControllerStack } from '../../infra/controller-app.js';
import { SYNTH_TIMEOUT_MS, type Synthesized, TEST_CONTEXT, synthesize } from './synth.js';

let synthesized: Synthesized;
beforeAll(() => {
  synthesized = synthesize();
}, SYNTH_TIMEOUT_MS);

/** Every acknowledged finding in the template, as `logicalId: ruleId`. */
function acknowledgements(): string[] {
  const { Resources } = synthesized.template.toJSON() as {
    Resources: Record<string, { Metadata?: { cdk_nag?: { rules_to_suppress: { id: string; reason: string }[] } } }>;
  };
  return Object.entries(Resources).flatMap(([id, resource]) =>
    (resource.Metadata?.cdk_nag?.rules_to_suppress ?? []).map((rule) => {
      expect(rule.reason.length, `${rule.id} on ${id} needs a specific reason`).toBeGreaterThan(40);
      return `${id.replace(/[0-9A-F]{8}$/, '')}: ${rule.id}`;
    }),
  );
}

describe('cdk-nag AwsSolutions', () => {
  it('reports no unacknowledged error or warning', () => {
    const report = new AwsSolutionsChecks(synthesized.app, { verbose: true }).validateScope(synthesized.app);
    expect(
      report.violations.map((v) => `${v.severity} ${v.ruleName} at ${v.violatingResources.map((r) => r.constructPath).join(', ')}`),
    ).toEqual([]);
    expect(report.success).toBe(true);
  });

  it('leaves no CDK warning or error annotation on the stack either', () => {
    const annotations = Annotations.fromStack(synthesized.stack);
    expect(annotations.findError('*', Match.anyValue())).toEqual([]);
    expect(annotations.findWarning('*', Match.anyValue())).toEqual([]);
  });

  it('acknowledges only the wildcards IAM cannot narrow, each on the one policy that holds it, with its reason in the template', () => {
    const ec2 = (type: string) => `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ec2:<AWS::Region>:<AWS::AccountId>:${type}/*]`;
    expect(acknowledgements().sort()).toEqual(
      [
        `AttachDetachPolicy: ${ec2('instance')}`,
        `AttachDetachPolicy: ${ec2('volume')}`,
        'DescribePolicy: AwsSolutions-IAM5[Resource::*]',
        // X-Ray's PutTraceSegments/PutTelemetryRecords, added by active tracing.
        'ControllerRoleDefaultPolicy: AwsSolutions-IAM5[Resource::*]',
        'FullPassScheduleRole: AwsSolutions-IAM5[Resource::<ScheduledPassFunction98A94010.Arn>:*]',
        'FullPassScheduleRoleDefaultPolicy: AwsSolutions-IAM5[Resource::<ScheduledPassFunction98A94010.Arn>:*]',
        'WatcherScheduleRole: AwsSolutions-IAM5[Resource::<WatcherFunctionD966CE9F.Arn>:*]',
        'WatcherScheduleRoleDefaultPolicy: AwsSolutions-IAM5[Resource::<WatcherFunctionD966CE9F.Arn>:*]',
      ].sort(),
    );
  });

  it('leaves no wildcard but X-Ray in the role default policy', () => {
    const { Resources } = synthesized.template.toJSON() as {
      Resources: Record<
        string,
        { Type: string; Properties: { PolicyDocument?: { Statement: { Action: string | string[]; Resource: unknown }[] } } }
      >;
    };
    const [defaultPolicy] = Object.entries(Resources).filter(([id]) => id.startsWith('ControllerRoleDefaultPolicy'));
    const wildcards = defaultPolicy![1].Properties.PolicyDocument!.Statement.filter((s) => s.Resource === '*').flatMap((s) => s.Action);
    expect(wildcards).toEqual(['xray:PutTraceSegments', 'xray:PutTelemetryRecords']);
  });

  it(
    'is wired into the app: an unacknowledged finding fails synthesis',
    () => {
      const app = new App({ context: { ...TEST_CONTEXT, 'aws:cdk:bundling-stacks': [] } });
      const stack = addControllerStack(app);
      new sqs.Queue(stack, 'Unencrypted', { encryption: sqs.QueueEncryption.UNENCRYPTED });
      expect(() => app.synth()).toThrow(/AwsSolutions-SQS2/);
    },
    SYNTH_TIMEOUT_MS,
  );

  it('does not acknowledge anything at stack or app level', () => {
    const acknowledgedAbove = [synthesized.app, synthesized.stack].flatMap((scope) =>
      scope.node.metadata.filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY),
    );
    expect(acknowledgedAbove).toEqual([]);
  });
});
