/**
 * One Lambda function with the project's defaults: Node 24 on ARM64, an ES module bundled
 * locally by esbuild (no Docker), its own log group, X-Ray tracing and reserved
 * concurrency. Each handler differs only by entry, size, timeout and triggers.
 */
import path from 'node:path';
import { type Duration, RemovalPolicy } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat, SourceMapMode } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { MINIFY, REQUIRE_SHIM } from '../bundling.js';
import { REPO_ROOT } from '../contracts.js';
import type { FunctionNetwork } from './vpc-access.js';

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
  readonly function: NodejsFunction;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: ControllerFunctionProps) {
    super(scope, id);
    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // Instead of AWSLambdaBasicExecutionRole's logs:* on every group: this log group only.
    this.logGroup.grantWrite(props.role);
    this.function = new NodejsFunction(this, 'Function', {
      entry: path.join(REPO_ROOT, props.entry),
      handler: 'handler',
      depsLockFilePath: path.join(REPO_ROOT, 'package-lock.json'),
      projectRoot: REPO_ROOT,
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
      // `awsSdkConnectionReuse` is left unset: it only sets AWS_NODEJS_CONNECTION_REUSE_ENABLED,
      // which SDK v3 (used here) ignores because it keeps connections alive by default.
      deadLetterQueue: props.asyncDeadLetterQueue,
      // A failed pass is not retried by Lambda: the next trigger runs a fresh one.
      retryAttempts: props.asyncDeadLetterQueue ? 0 : undefined,
      maxEventAge: props.asyncMaxEventAge,
      ...props.network,
      bundling: {
        format: OutputFormat.ESM,
        mainFields: ['module', 'main'],
        banner: REQUIRE_SHIM,
        keepNames: MINIFY.keepNames,
        esbuildArgs: { '--minify-whitespace': MINIFY.minifyWhitespace, '--minify-syntax': MINIFY.minifySyntax },
        sourceMap: true,
        sourceMapMode: SourceMapMode.DEFAULT,
        sourcesContent: false,
        // Ship the SDK versions we test with instead of the runtime's copy.
        bundleAwsSDK: true,
        forceDockerBundling: false,
        tsconfig: path.join(REPO_ROOT, 'tsconfig.json'),
      },
    });
  }
}
