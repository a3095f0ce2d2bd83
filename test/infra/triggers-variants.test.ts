/**
 * The fast paths the stack deploys: by default the watcher and no event exporter route (nothing to
 * install in the cluster); with the watcher off, the exporter's route by default instead; and on
 * request both, or neither (the full pass alone).
 */
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { nagFindings, SYNTH_TIMEOUT_MS, synthesize, TEST_CONTEXT, type Synthesized } from './synth.js';

const { eventExporter: _given, ...defaults } = TEST_CONTEXT;
let byDefault: Synthesized;
let withoutWatcher: Synthesized;
beforeAll(() => {
  byDefault = synthesize({ ...defaults, eventExporter: undefined });
  withoutWatcher = synthesize({ ...defaults, eventExporter: undefined, watcher: 'off' });
}, 2 * SYNTH_TIMEOUT_MS);

const functions = (template: Template) =>
  Object.keys(template.findResources('AWS::Lambda::Function'))
    .map((id) => id.replace(/Function[0-9A-F]{8}$/, ''))
    .sort();
const outputs = (template: Template) => Object.keys(template.findOutputs('*')).sort();

describe('triggers', () => {
  it('by default: the watcher, and no bus, rule, queue, function or policy for the event exporter', () => {
    const { template } = byDefault;
    expect(functions(template)).toEqual(['Ec2EventPass', 'ScheduledPass', 'Watcher']);
    template.resourceCountIs('AWS::Events::EventBus', 0);
    template.resourceCountIs('AWS::Events::Rule', 1);
    template.resourceCountIs('AWS::IAM::ManagedPolicy', 0);
    template.resourceCountIs('AWS::Scheduler::Schedule', 2);
    expect(outputs(template)).toEqual(['AlarmTopicArn', 'ControllerRoleArn', 'StateTableName']);
    expect(nagFindings(byDefault)).toEqual([]);
  });

  it('with the watcher off: the exporter route by default, and no watcher schedule, function or alarm', () => {
    const { template } = withoutWatcher;
    expect(functions(template)).toEqual(['ClusterEventPass', 'Ec2EventPass', 'ScheduledPass']);
    template.resourceCountIs('AWS::Events::EventBus', 1);
    template.resourceCountIs('AWS::Scheduler::Schedule', 1);
    expect(JSON.stringify(template.findResources('AWS::CloudWatch::Alarm'))).not.toContain('WatcherRuns');
    expect(outputs(template)).toEqual([
      'AlarmTopicArn',
      'ControllerRoleArn',
      'EventBusArn',
      'EventBusName',
      'ExporterPolicyArn',
      'StateTableName',
    ]);
  });
});
