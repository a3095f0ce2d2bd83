/**
 * CloudFormation's intrinsic functions in a synthesized template, resolved the way CloudFormation
 * resolves them at deploy time for one account and region, so a policy document can be evaluated
 * as AWS will hold it. Logical ids resolve to the names and ARNs the caller gives.
 */
export interface DeployTarget {
  partition: string;
  region: string;
  accountId: string;
  /** `Ref` of a logical id (a resource's name or id). */
  refs?: Record<string, string>;
  /** `Fn::GetAtt` of a logical id: `Arn` and the like; unknown ones resolve to a placeholder ARN of that id. */
  attributes?: Record<string, Record<string, string>>;
}

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

export function resolveIntrinsics(value: unknown, target: DeployTarget): Json {
  if (Array.isArray(value)) return value.map((item) => resolveIntrinsics(item, target));
  if (value === null || typeof value !== 'object') return value as Json;
  const entries = Object.entries(value as Record<string, unknown>);
  const [first] = entries;
  if (entries.length === 1 && first && isIntrinsic(first[0])) return intrinsic(first[0], first[1], target);
  return Object.fromEntries(entries.map(([key, item]) => [key, resolveIntrinsics(item, target)]));
}

const isIntrinsic = (key: string) => key === 'Ref' || key.startsWith('Fn::');

function pseudo(name: string, target: DeployTarget): string | undefined {
  const values: Record<string, string> = {
    'AWS::Partition': target.partition,
    'AWS::Region': target.region,
    'AWS::AccountId': target.accountId,
    'AWS::URLSuffix': 'amazonaws.com',
    'AWS::StackName': 'local-stack',
  };
  return values[name];
}

function intrinsic(name: string, argument: unknown, target: DeployTarget): Json {
  const resolved = resolveIntrinsics(argument, target);
  switch (name) {
    case 'Ref': {
      const ref = resolved as string;
      return pseudo(ref, target) ?? target.refs?.[ref] ?? ref;
    }
    case 'Fn::GetAtt': {
      const [id, attribute] = resolved as [string, string];
      return (
        target.attributes?.[id]?.[attribute] ??
        `arn:${target.partition}:cloudformation:${target.region}:${target.accountId}:${id}/${attribute}`
      );
    }
    case 'Fn::Join': {
      const [separator, parts] = resolved as [string, Json[]];
      return parts.map(String).join(separator);
    }
    case 'Fn::Select': {
      const [index, list] = resolved as [number | string, Json[]];
      return list[Number(index)] ?? null;
    }
    case 'Fn::Split': {
      const [separator, text] = resolved as [string, string];
      return text.split(separator);
    }
    default:
      throw new Error(`the template uses ${name}, which this resolver does not know`);
  }
}
