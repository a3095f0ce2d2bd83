/**
 * `-c mode=attacher|controller`: the two stacks differ only where the mode says (the functions'
 * OPERATING_MODE, the cluster-event rule and its function's description), and both are cdk-nag clean.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../lambda/config.js';
import { CLUSTER_EVENT_KINDS, CLUSTER_EVENT_REASONS } from '../../lambda/handlers/contracts.js';
import { SYNTH_TIMEOUT_MS, type Synthesized, nagFindings, resourceId, synthesize } from './synth.js';

let controller: Synthesized;
let attacher: Synthesized;
let unset: Synthesized;
beforeAll(() => {
  controller = synthesize({ mode: 'controller' });
  attacher = synthesize({ mode: 'attacher' });
  unset = synthesize();
}, SYNTH_TIMEOUT_MS * 3);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Paths where two JSON values differ; logical ids lose their hash suffix so paths read as names. */
function differences(a: Json | undefined, b: Json | undefined, path = ''): string[] {
  const bothObjects = typeof a === 'object' && a !== null && typeof b === 'object' && b !== null;
  if (!bothObjects || Array.isArray(a) !== Array.isArray(b)) return JSON.stringify(a) === JSON.stringify(b) ? [] : [path];
  if (Array.isArray(a) && Array.isArray(b) && a.length !== b.length) return [path];
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].flatMap((key) => {
    const name = /^[A-Za-z][A-Za-z0-9]*[0-9A-F]{8}$/.test(key) ? key.slice(0, -8) : key;
    return differences((a as Record<string, Json>)[key], (b as Record<string, Json>)[key], path ? `${path}.${name}` : name);
  });
}

const json = (template: Template) => template.toJSON() as Json;
const ruleProperties = (template: Template) =>
  (template.toJSON() as { Resources: Record<string, { Properties: Record<string, unknown> }> }).Resources[
    resourceId(template, 'AWS::Events::Rule', 'ClusterEventRouteRule')
  ]?.Properties;

describe('operating mode', () => {
  it('is controller when unset, so stacks deployed before attacher mode keep their behaviour', () => {
    expect(differences(json(unset.template), json(controller.template))).toEqual([]);
  });

  it('changes only OPERATING_MODE, WRITES (attacher mode deploys as a shadow), the cluster-event rule and the cluster-event function description', () => {
    const functions = ['ScheduledPassFunction', 'ClusterEventPassFunction', 'Ec2EventPassFunction', 'WatcherFunction'];
    expect(differences(json(controller.template), json(attacher.template)).sort()).toEqual(
      [
        ...functions.map((fn) => `Resources.${fn}.Properties.Environment.Variables.OPERATING_MODE`),
        ...functions.map((fn) => `Resources.${fn}.Properties.Environment.Variables.WRITES`),
        'Resources.ClusterEventPassFunction.Properties.Description',
        'Resources.ClusterEventRouteRule.Properties.Description',
        'Resources.ClusterEventRouteRule.Properties.EventPattern.detail.involvedObject.kind',
        'Resources.ClusterEventRouteRule.Properties.EventPattern.detail.reason',
      ].sort(),
    );
  });

  it.each([
    ['controller', () => controller],
    ['attacher', () => attacher],
  ])('%s: every function runs in that mode', (mode, synthesized) => {
    const functions = Object.values(synthesized().template.findResources('AWS::Lambda::Function')) as {
      Properties: { Environment: { Variables: Record<string, string> } };
    }[];
    expect(functions.map((fn) => fn.Properties.Environment.Variables.OPERATING_MODE)).toEqual([mode, mode, mode, mode]);
    const env = { ...functions[0]!.Properties.Environment.Variables, TABLE_NAME: 'state-table', AWS_REGION: 'eu-west-1' };
    expect(() => loadConfig(env, 'lambda')).not.toThrow();
  });

  it('controller mode: Pod and Node events of every reason that can move a volume start a targeted pass', () => {
    expect(ruleProperties(controller.template)?.EventPattern).toMatchObject({
      detail: { involvedObject: { kind: [...CLUSTER_EVENT_KINDS] }, reason: [...CLUSTER_EVENT_REASONS] },
    });
  });

  it("attacher mode: only a pod's Scheduled event does (kcm decides detaches; VA creation makes no event)", () => {
    expect(ruleProperties(attacher.template)?.EventPattern).toMatchObject({
      detail: { involvedObject: { kind: ['Pod'] }, reason: ['Scheduled'] },
    });
  });

  it("keeps the full pass's and the watcher's schedules and the EC2 instance rule in both modes", () => {
    for (const { template } of [controller, attacher]) {
      template.resourceCountIs('AWS::Scheduler::Schedule', 2);
      template.resourceCountIs('AWS::Events::Rule', 2);
    }
  });

  it.each([
    ['controller', () => controller],
    ['attacher', () => attacher],
  ])('%s: cdk-nag clean', (_mode, synthesized) => {
    expect(nagFindings(synthesized())).toEqual([]);
  });
});
