/**
 * The controller role as the stack synthesizes it, for the local EC2's IAM model: the real stack
 * (infra/controller-app.ts) is built for the sandbox's cluster and settings, and the policies
 * attached to its role are resolved for the sandbox's account and region. No hand copy: change a
 * grant in infra/ and the demo, the e2e tests and the fault suite see the change.
 *
 * Building the stack costs seconds (aws-cdk-lib), and every test file runs in a process of its own,
 * so the resolved policies are cached on disk, keyed by the settings and by the contents of every
 * file that can shape them (infra/, the core's tag schemes, the locked aws-cdk-lib).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { IamPrincipal } from './ec2/iam/authorize.js';
import { IamEvaluator, type NamedPolicy } from './ec2/iam/evaluator.js';
import { rolePolicies, type Template } from './ec2/iam/role-policies.js';

export interface StackPolicyOptions {
  clusterName: string;
  mode: 'controller' | 'attacher';
  /** The stack's context keys of the same names (unset: the stack's defaults). */
  volumeTags?: string;
  instanceTags?: string;
  kmsKeyArns?: string[];
}

export const SANDBOX_ACCOUNT = '123456789012';
export const SANDBOX_REGION = 'us-east-1';
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CACHE = path.join(ROOT, 'node_modules', '.cache', 'ebs-attach-detach-iam');
/** A certificate-shaped CA: the stack only checks its shape. */
const SANDBOX_CA = Buffer.from('-----BEGIN CERTIFICATE-----\nc2FuZGJveA==\n-----END CERTIFICATE-----\n').toString('base64');

/** One evaluator for every local stack of the process: decisions depend only on their inputs. */
export const SHARED_EVALUATOR = new IamEvaluator();

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}

function cacheKey(options: StackPolicyOptions): string {
  const hash = createHash('sha256').update(JSON.stringify(options));
  const inputs = [
    ...filesUnder(path.join(ROOT, 'infra')),
    path.join(ROOT, 'lambda/core/tag-scheme.ts'),
    path.join(ROOT, 'package-lock.json'),
  ];
  for (const file of inputs) hash.update(file).update(readFileSync(file));
  return hash.digest('hex').slice(0, 32);
}

/** The role's identity policies, from the stack built in this process (seconds). */
async function synthesizePolicies(options: StackPolicyOptions): Promise<NamedPolicy[]> {
  const [{ App, Stack }, iam, { addControllerStack }] = await Promise.all([
    import('aws-cdk-lib'),
    import('aws-cdk-lib/aws-iam'),
    import('../infra/controller-app.js'),
  ]);
  const context: Record<string, unknown> = {
    clusterName: options.clusterName,
    mode: options.mode,
    apiEndpoint: 'https://kubernetes.sandbox.invalid',
    certificateAuthority: SANDBOX_CA,
    'aws:cdk:bundling-stacks': [],
    ...(options.volumeTags === undefined ? {} : { volumeTags: options.volumeTags }),
    ...(options.instanceTags === undefined ? {} : { instanceTags: options.instanceTags }),
    ...(options.kmsKeyArns === undefined ? {} : { kmsKeyArns: options.kmsKeyArns.join(',') }),
  };
  const stack = addControllerStack(new App({ context }));
  // The policy documents as synthesis writes them, without writing an assembly (which costs seconds more).
  const resources: Template['Resources'] = {};
  for (const child of stack.node.findAll()) {
    if (child instanceof iam.CfnRole) resources[stack.getLogicalId(child)] = { Type: 'AWS::IAM::Role', Properties: {} };
    if (child instanceof iam.CfnPolicy || child instanceof iam.CfnManagedPolicy) {
      const properties = { Roles: stack.resolve(child.roles) as unknown, PolicyDocument: stack.resolve(child.policyDocument) as unknown };
      resources[stack.getLogicalId(child)] = { Type: child.cfnResourceType, Properties: properties };
    }
  }
  const roleId = Stack.of(stack).getLogicalId(stack.role.node.defaultChild as InstanceType<typeof iam.CfnRole>);
  return rolePolicies({ Resources: resources }, roleId, { partition: 'aws', region: SANDBOX_REGION, accountId: SANDBOX_ACCOUNT });
}

/** Per process: every local stack of the same settings shares one principal (and so the evaluator's memo). */
const principals = new Map<string, Promise<IamPrincipal>>();

/** The controller role's sessions as the local EC2 sees them: ARN and the stack's policies. */
export function controllerPrincipal(options: StackPolicyOptions): Promise<IamPrincipal> {
  const key = JSON.stringify(options);
  let principal = principals.get(key);
  if (principal === undefined) {
    principal = loadPrincipal(options);
    principals.set(key, principal);
  }
  return principal;
}

async function loadPrincipal(options: StackPolicyOptions): Promise<IamPrincipal> {
  const file = path.join(CACHE, `${cacheKey(options)}.json`);
  let policies: NamedPolicy[];
  try {
    policies = JSON.parse(readFileSync(file, 'utf8')) as NamedPolicy[];
  } catch {
    policies = await synthesizePolicies(options);
    mkdirSync(CACHE, { recursive: true });
    // Written whole, then renamed: a process reading at the same time sees all of it or nothing.
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, JSON.stringify(policies));
    renameSync(partial, file);
  }
  const role = `ebs-attach-detach-${options.clusterName}-ControllerRole`;
  return { arn: `arn:aws:sts::${SANDBOX_ACCOUNT}:assumed-role/${role}/${options.clusterName}-pass`, policies, tags: {} };
}
