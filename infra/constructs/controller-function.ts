/**
 * One Lambda function with the project's defaults: Node 24 on ARM64, an ES module bundled
 * locally by esbuild (no Docker) through infra/handler-bundle.ts, its own log group, X-Ray
 * tracing and reserved concurrency. Each handler differs only by entry, size, timeout and triggers.
 *
 * Not NodejsFunction: its esbuild runs from the command line, which takes no plugins, and the
 * bundle needs one to leave out the SDK shapes of operations we never call (handler-bundle.ts).
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { AssetHashType, DockerImage, type Duration, type ILocalBundling, RemovalPolicy } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { REPO_ROOT } from '../contracts.js';
import type { FunctionNetwork } from './vpc-access.js';

const BUNDLER = path.join(REPO_ROOT, 'infra', 'handler-bundle.ts');

/**
 * Builds one handler's bundle on this machine. CDK's local bundling is synchronous and esbuild's
 * synchronous API takes no plugins, so the build runs as a child process. The entry is a field,
 * not only captured by `tryBundle`: CDK stages one asset per hash of the options' JSON, and a
 * function serialises as nothing, so every handler would otherwise share the first one's bundle.
 */
class HandlerBundling implements ILocalBundling {
  constructor(readonly entry: string) {}

  tryBundle(outputDir: string): boolean {
    execFileSync(process.execPath, ['--import', 'tsx', BUNDLER, path.join(REPO_ROOT, this.entry), outputDir], {
      cwd: REPO_ROOT,
      stdio: 'inherit',
    });
    return true;
  }
}

/** The handler's bundle as a Lambda asset, hashed by its output as NodejsFunction's was. */
function handlerCode(entry: string): lambda.Code {
  return lambda.Code.fromAsset(path.join(REPO_ROOT, 'lambda'), {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Required by the API and never pulled: local bundling either succeeds or throws.
      image: DockerImage.fromRegistry('public.ecr.aws/docker/library/node:24'),
      local: new HandlerBundling(entry),
    },
  });
}

export interface ControllerFunctionProps {
  /** Entry file relative to the repository root; it exports `handler`. */
  entry: string;
  description: string;
  memorySize: number;
  timeout: Duration;
  reservedConcurrency: number;
  /** Variables shared by every function (validated by the handlers' composition root). */
  environment: Record<string, string>;
  /** Asynchronous invocations only: where events that failed or expired go. */
  asyncDeadLetterQueue?: sqs.IQueue;
  /** Asynchronous invocations only: drop an event that waited longer than this. */
  asyncMaxEventAge?: Duration;
  /** The controller's role, shared by its functions (one principal for the EKS access entry). */
  role: iam.IRole;
  /** Inside the cluster's VPC (a private API endpoint); unset: outside any VPC. */
  network?: FunctionNetwork;
}

export class ControllerFunction extends Construct {
  readonly function: lambda.Function;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: ControllerFunctionProps) {
    super(scope, id);
    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // Instead of AWSLambdaBasicExecutionRole's logs:* on every group: this log group only.
    this.logGroup.grantWrite(props.role);
    this.function = new lambda.Function(this, 'Function', {
      code: handlerCode(props.entry),
      handler: 'index.handler',
      description: props.description,
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memorySize,
      timeout: props.timeout,
      reservedConcurrentExecutions: props.reservedConcurrency,
      role: props.role,
      logGroup: this.logGroup,
      tracing: lambda.Tracing.ACTIVE,
      environment: props.environment,
      deadLetterQueue: props.asyncDeadLetterQueue,
      // A failed pass is not retried by Lambda: the next trigger runs a fresh one.
      retryAttempts: props.asyncDeadLetterQueue ? 0 : undefined,
      maxEventAge: props.asyncMaxEventAge,
      ...props.network,
    });
  }
}
