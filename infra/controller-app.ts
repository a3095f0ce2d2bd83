/**
 * Builds the controller's stack into an app from the app's context, with cdk-nag's AwsSolutions
 * checks applied. Shared by the CDK entry point and the tests, so both synthesize the same thing.
 */
import { type App, Tags, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { AttachDetachStack } from './stack.js';
import { readSettings } from './settings.js';

export function addControllerStack(app: App): AttachDetachStack {
  const settings = readSettings((key) => app.node.tryGetContext(key));
  // Environment-agnostic: nothing is looked up, so `cdk synth` needs no account or credentials.
  const stack = new AttachDetachStack(app, `ebs-attach-detach-${settings.clusterName}`, {
    settings,
    description: `Serverless EBS attach/detach controller for EKS cluster ${settings.clusterName}`,
  });
  Tags.of(stack).add('app', 'ebs-attach-detach');
  Tags.of(stack).add('cluster', settings.clusterName);
  // cdk-nag 3 is a policy-validation plugin: any unacknowledged finding fails synthesis.
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true, writeSuppressionsToCloudFormation: true }));
  return stack;
}
