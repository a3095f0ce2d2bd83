/**
 * What went wrong, said for an operator: the SDK's and Node's bare errors ("Requested resource not
 * found", "Could not load credentials from any providers", ECONNREFUSED) with what to do about them.
 */
import type { Config } from '../config.js';

interface ErrorFacts {
  name: string;
  message: string;
  code?: string;
}

/** The error and its causes, outermost first. */
function chainOf(error: unknown): ErrorFacts[] {
  const chain: ErrorFacts[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    const e = current as { name?: unknown; message?: unknown; code?: unknown; cause?: unknown };
    chain.push({
      name: typeof e.name === 'string' ? e.name : 'Error',
      message: typeof e.message === 'string' ? e.message : typeof current === 'string' ? current : JSON.stringify(current),
      ...(typeof e.code === 'string' ? { code: e.code } : {}),
    });
    current = e.cause;
  }
  return chain;
}

const where = (endpoint: string | undefined, config: Config) => (endpoint === undefined ? `in ${config.region}` : `at ${endpoint}`);

/** One or two lines: the error, and the hint when one is known. */
export function describeError(error: unknown, config?: Config): string {
  const chain = chainOf(error);
  const first = chain[0]!;
  const has = (test: (e: ErrorFacts) => boolean) => chain.some(test);
  const hint = config === undefined ? undefined : hintFor(has, config);
  return hint === undefined ? `error: ${first.message}` : `error: ${first.message}\nhint: ${hint}`;
}

function hintFor(has: (test: (e: ErrorFacts) => boolean) => boolean, config: Config): string | undefined {
  if (has((e) => e.name === 'ResourceNotFoundException'))
    return `the state table ${config.tableName} does not exist ${where(config.endpoints.dynamodb, config)}: create it with \`ebs-attach-detach init\` (local DynamoDB), or see \`ebs-attach-detach init --print\` for AWS`;
  if (has((e) => e.name === 'CredentialsProviderError' || /Could not load credentials/i.test(e.message)))
    return 'no AWS credentials found. Local sandbox: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY to any value (e.g. local) with AWS_ENDPOINT_URL_EC2 and AWS_ENDPOINT_URL_DYNAMODB. AWS: use a profile (AWS_PROFILE, `aws sso login`) or a role';
  if (
    has((e) =>
      ['UnrecognizedClientException', 'InvalidClientTokenId', 'AuthFailure', 'ExpiredToken', 'ExpiredTokenException'].includes(e.name),
    )
  )
    return 'AWS refused the credentials: refresh them (`aws sso login`) or check AWS_PROFILE and AWS_REGION';
  if (has((e) => e.code === 'ECONNREFUSED' || /ECONNREFUSED/.test(e.message)))
    return `nothing answers there: is the local sandbox running (npm run sandbox:ec2, sandbox:dynamodb, sandbox:kube) and do AWS_ENDPOINT_URL_EC2, AWS_ENDPOINT_URL_DYNAMODB and KUBECONFIG point at it?`;
  if (has((e) => e.code === 'ENOENT' && /kube/i.test(e.message)))
    return `KUBECONFIG (${config.kube.kind === 'kubeconfig' ? (config.kube.path ?? '~/.kube/config') : 'EKS'}) cannot be read: point it at a kubeconfig, e.g. .sandbox/kube/kubeconfig from npm run sandbox:kube`;
  return undefined;
}
