/**
 * EC2 Query parameters: flat `Name.N.Member.M=value` pairs (form body or query string),
 * read here into strings, lists and structures. Lists are ordered by their 1-based index.
 */
import { ec2Errors } from './errors.js';

export type Params = ReadonlyMap<string, string>;

export function parseParams(body: string, query = ''): Params {
  const params = new Map<string, string>();
  for (const source of [query, body]) {
    for (const [key, value] of new URLSearchParams(source)) params.set(key, value);
  }
  return params;
}

export function optional(params: Params, name: string): string | undefined {
  return params.get(name);
}

export function required(params: Params, name: string): string {
  const value = params.get(name);
  if (value === undefined || value === '') throw ec2Errors.missingParameter(name);
  return value;
}

export function optionalInt(params: Params, name: string): number | undefined {
  const value = params.get(name);
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value)) throw ec2Errors.invalidParameter(`Value (${value}) for parameter ${name} is invalid. Expected an integer.`);
  return Number(value);
}

export function optionalBool(params: Params, name: string): boolean | undefined {
  const value = params.get(name);
  if (value === undefined) return undefined;
  if (value !== 'true' && value !== 'false')
    throw ec2Errors.invalidParameter(`Value (${value}) for parameter ${name} is invalid. Expected a boolean.`);
  return value === 'true';
}

/** The members of the list `prefix.N[.rest]`, as sub-parameter maps keyed by `rest`, in index order. */
function members(params: Params, prefix: string): Params[] {
  const byIndex = new Map<number, Map<string, string>>();
  const head = `${prefix}.`;
  for (const [key, value] of params) {
    if (!key.startsWith(head)) continue;
    const match = /^(\d+)(?:\.(.+))?$/.exec(key.slice(head.length));
    if (!match) continue;
    const index = Number(match[1]);
    const entry = byIndex.get(index) ?? new Map<string, string>();
    entry.set(match[2] ?? '', value);
    byIndex.set(index, entry);
  }
  return [...byIndex.entries()].sort(([a], [b]) => a - b).map(([, entry]) => entry);
}

/** A list of scalars: `prefix.1=a&prefix.2=b`. */
export function list(params: Params, prefix: string): string[] {
  return members(params, prefix).flatMap((member) => {
    const value = member.get('');
    return value === undefined ? [] : [value];
  });
}

export interface Filter {
  name: string;
  values: string[];
}

export function filters(params: Params): Filter[] {
  return members(params, 'Filter').map((member) => {
    const name = member.get('Name');
    if (name === undefined) throw ec2Errors.missingParameter('Filter.N.Name');
    return { name, values: list(member, 'Value') };
  });
}

export interface Tag {
  key: string;
  value: string;
}

export function tags(params: Params, prefix = 'Tag'): Tag[] {
  return members(params, prefix).map((member) => {
    const key = member.get('Key');
    if (key === undefined || key === '') throw ec2Errors.missingParameter(`${prefix}.N.Key`);
    return { key, value: member.get('Value') ?? '' };
  });
}

/** Tags from `TagSpecification.N` whose ResourceType is `resourceType`. */
export function tagSpecifications(params: Params, resourceType: string): Tag[] {
  return members(params, 'TagSpecification')
    .filter((spec) => spec.get('ResourceType') === resourceType)
    .flatMap((spec) => tags(spec));
}
