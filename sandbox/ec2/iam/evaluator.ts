/**
 * IAM's decision on one request, by a maintained policy evaluator (@cloud-copilot/iam-simulate: it
 * knows every service's actions, resource types and condition keys from AWS's Service Authorization
 * Reference, and every condition operator). A request's decision depends on nothing but its inputs,
 * so decisions are memoized: a pass asks the same (action, resource, tags) again and again, and a
 * cached answer costs a map lookup instead of a policy evaluation (~1.5 ms).
 */
import { runSimulation } from '@cloud-copilot/iam-simulate';

/** An IAM policy document as JSON (a synthesized template's, with its intrinsics resolved). */
export type PolicyDocument = Record<string, unknown>;

export interface NamedPolicy {
  name: string;
  document: PolicyDocument;
}

export interface IamRequest {
  /** The caller: a role session or user ARN, or a service principal (`cloudwatch.amazonaws.com`). */
  principal: string;
  action: string;
  resource: string;
  /** The account that owns the resource. */
  accountId: string;
  context: Record<string, string | string[]>;
  identityPolicies: readonly NamedPolicy[];
  /** The resource's own policy (a KMS key policy, an SNS topic policy), when it has one. */
  resourcePolicy?: PolicyDocument;
}

export interface IamDecision {
  allowed: boolean;
  explicitDeny: boolean;
  /** Sids (or positions) of the statements that allowed or denied the request. */
  matchedStatements: string[];
}

const MEMO_LIMIT = 20_000;

export class IamEvaluator {
  private readonly memo = new Map<string, Promise<IamDecision>>();
  private readonly shapes = new WeakMap<readonly NamedPolicy[], PolicyShape>();

  decide(request: IamRequest): Promise<IamDecision> {
    const key = this.memoKey(request);
    const known = this.memo.get(key);
    if (known) return known;
    if (this.memo.size >= MEMO_LIMIT) this.memo.clear();
    const decision = evaluate(request);
    this.memo.set(key, decision);
    return decision;
  }

  /**
   * What the decision can depend on: context keys no condition (or policy variable) names cannot
   * change it, and neither can a resource id when every resource pattern of that service ends in a
   * wildcard. So one evaluation serves every volume with the same tags.
   */
  private memoKey(request: IamRequest): string {
    let shape = this.shapes.get(request.identityPolicies);
    if (shape === undefined) {
      shape = shapeOf(request.identityPolicies.map((p) => p.document));
      this.shapes.set(request.identityPolicies, shape);
    }
    const resourceShape = request.resourcePolicy === undefined ? undefined : shapeOf([request.resourcePolicy]);
    const referenced = (key: string) => shape.keys.has(key.toLowerCase()) || resourceShape?.keys.has(key.toLowerCase()) === true;
    const context = Object.entries(request.context)
      .filter(([key]) => referenced(key))
      .sort(([a], [b]) => a.localeCompare(b));
    const service = request.resource.split(':')[2];
    const anyId =
      resourceShape === undefined && service !== undefined && !shape.specificServices.has(service) && !shape.specificServices.has('*');
    const resource = anyId ? request.resource.replace(/[^/:]+$/, '{id}') : request.resource;
    return JSON.stringify([
      shape.id,
      request.principal,
      request.action,
      resource,
      request.accountId,
      context,
      request.resourcePolicy ?? null,
    ]);
  }
}

interface PolicyShape {
  id: number;
  /** Condition keys and policy variables the documents name, lower-cased (IAM's keys are case-insensitive). */
  keys: Set<string>;
  /** Services some resource pattern names without a trailing wildcard (a specific resource). */
  specificServices: Set<string>;
}

let shapes = 0;

function shapeOf(documents: readonly PolicyDocument[]): PolicyShape {
  const keys = new Set<string>();
  const specificServices = new Set<string>();
  for (const document of documents) {
    for (const match of JSON.stringify(document).matchAll(/\$\{([^}]+)\}/g)) keys.add((match[1] ?? '').toLowerCase());
    const statements = ([] as unknown[]).concat(document.Statement ?? []) as Record<string, unknown>[];
    for (const statement of statements) {
      for (const operator of Object.values((statement.Condition ?? {}) as Record<string, Record<string, unknown>>)) {
        for (const key of Object.keys(operator)) keys.add(key.toLowerCase());
      }
      for (const pattern of ([] as unknown[]).concat(statement.Resource ?? [], statement.NotResource ?? [])) {
        if (typeof pattern !== 'string' || pattern.endsWith('*')) continue;
        specificServices.add(pattern.split(':')[2] ?? '*');
      }
    }
  }
  return { id: ++shapes, keys, specificServices };
}

async function evaluate(request: IamRequest): Promise<IamDecision> {
  const result = await runSimulation(
    {
      request: {
        principal: request.principal,
        action: request.action,
        resource: { resource: request.resource, accountId: request.accountId },
        contextVariables: request.context,
      },
      identityPolicies: request.identityPolicies.map((policy) => ({ name: policy.name, policy: policy.document })),
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      ...(request.resourcePolicy === undefined ? {} : { resourcePolicy: request.resourcePolicy }),
    },
    {},
  );
  // A policy the evaluator cannot read is a bug in what we hand it, never a refusal.
  if (result.resultType === 'error') throw new Error(`IAM evaluation failed: ${result.errors.message} ${JSON.stringify(result.errors)}`);
  return {
    allowed: result.overallResult === 'Allowed',
    explicitDeny: result.overallResult === 'ExplicitlyDenied',
    matchedStatements: matched(result),
  };
}

interface StatementRef {
  statement: { Sid?: string };
}

function matched(result: Awaited<ReturnType<typeof runSimulation>>): string[] {
  if (result.resultType !== 'single') return [];
  const analysis = result.result.analysis as { identityAnalysis?: { allowStatements?: StatementRef[]; denyStatements?: StatementRef[] } };
  const statements = [...(analysis.identityAnalysis?.allowStatements ?? []), ...(analysis.identityAnalysis?.denyStatements ?? [])];
  return statements.map((s, i) => s.statement.Sid ?? `#${i}`);
}
