/**
 * Synthesizes the controller app the way `cdk synth` does (same context keys, same cdk-nag
 * plugin) for the stack tests. Bundling is skipped unless asked for: template assertions do not
 * need the bundles, and bundling.test.ts exercises the real esbuild configuration.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { addControllerStack } from '../../infra/controller-app.js';
import type { AttachDetachStack } from '../../infra/stack.js';

/** Base64 of a PEM-shaped certificate, as EKS returns `certificateAuthority.data`. */
export const TEST_CA = Buffer.from('-----BEGIN CERTIFICATE-----\nMIIBdGVzdA==\n-----END CERTIFICATE-----\n').toString('base64');

/** Every resource the stack can make: the watcher (on by default) and the event exporter's route (off by default with it). */
export const TEST_CONTEXT = {
  clusterName: 'prod',
  apiEndpoint: 'https://ABC123.gr7.eu-west-1.eks.amazonaws.com',
  certificateAuthority: TEST_CA,
  alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:ops',
  eventExporter: 'on',
};

/** One synthesis takes a few seconds; a loaded 2-core machine can stretch it past vitest's hook default. */
export const SYNTH_TIMEOUT_MS = 90_000;

export interface Synthesized {
  app: App;
  stack: AttachDetachStack;
  template: Template;
}

export function synthesize(context: Record<string, unknown> = {}): Synthesized {
  const app = new App({
    context: { ...TEST_CONTEXT, ...context, 'aws:cdk:bundling-stacks': [] },
  });
  const stack = addControllerStack(app);
  return { app, stack, template: Template.fromStack(stack) };
}

/** The one resource of a type whose logical id starts with `prefix` (ids carry a hash suffix). */
export function resourceId(template: Template, type: string, prefix: string): string {
  const ids = Object.keys(template.findResources(type)).filter((id) => id.startsWith(prefix));
  if (ids.length !== 1) throw new Error(`expected one ${type} named ${prefix}*, found ${ids.join(', ') || 'none'}`);
  return ids[0] as string;
}

/** cdk-nag's AwsSolutions findings not acknowledged, as `severity rule at paths` (empty when clean). */
export function nagFindings({ app }: Synthesized): string[] {
  const report = new AwsSolutionsChecks(app, { verbose: true }).validateScope(app);
  return report.violations.map((v) => `${v.severity} ${v.ruleName} at ${v.violatingResources.map((r) => r.constructPath).join(', ')}`);
}
