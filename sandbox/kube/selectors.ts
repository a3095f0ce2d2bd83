/**
 * Label and field selectors as the list endpoints accept them (k8s.io/apimachinery
 * labels.Parse and fields.ParseSelector): equality, inequality, existence and set-based
 * label requirements; equality-based field requirements on the field labels a type supports.
 */
import { text } from './json.js';
import type { ResourceType } from './resources.js';
import type { KubeObject } from './store.js';
import { errors } from './status.js';

type Predicate = (object: KubeObject) => boolean;

/** Splits on commas that are not inside `( … )`, as in `env in (a,b),tier=web`. */
function splitTerms(selector: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of selector) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      terms.push(current.trim());
      current = '';
    } else current += ch;
  }
  if (current.trim() !== '') terms.push(current.trim());
  return terms.filter((t) => t !== '');
}

function labelRequirement(term: string): (labels: Record<string, string>) => boolean {
  const set = /^([^\s!=]+)\s+(in|notin)\s+\((.*)\)$/.exec(term);
  if (set) {
    const [, key = '', op, list = ''] = set;
    const values = new Set(list.split(',').map((v) => v.trim()));
    return op === 'in'
      ? (labels) => key in labels && values.has(labels[key] as string)
      : (labels) => !(key in labels) || !values.has(labels[key] as string);
  }
  const compare = /^([^\s!=]+)\s*(==|=|!=)\s*([^\s,]*)$/.exec(term);
  if (compare) {
    const [, key = '', op, value] = compare;
    return op === '!=' ? (labels) => labels[key] !== value : (labels) => labels[key] === value;
  }
  const exists = /^(!?)([^\s!=(),]+)$/.exec(term);
  if (exists) {
    const [, not, key = ''] = exists;
    return not ? (labels) => !(key in labels) : (labels) => key in labels;
  }
  throw errors.badRequest(`unable to parse requirement: invalid label selector term "${term}"`);
}

export function parseLabelSelector(selector: string | null): Predicate {
  if (!selector) return () => true;
  const requirements = splitTerms(selector).map(labelRequirement);
  return (object) => {
    const labels = object.metadata.labels ?? {};
    return requirements.every((r) => r(labels));
  };
}

/** The string value a field label selects on; upstream maps `source` to `source.component`. */
function fieldValue(object: KubeObject, label: string): string {
  const path = label === 'source' ? 'source.component' : label;
  let value: unknown = object;
  for (const part of path.split('.')) {
    value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
  }
  if (value === undefined || value === null) return label === 'spec.hostNetwork' || label === 'spec.unschedulable' ? 'false' : '';
  return typeof value === 'object' ? JSON.stringify(value) : text(value);
}

export function parseFieldSelector(selector: string | null, type: ResourceType): Predicate {
  if (!selector) return () => true;
  const allowed = new Set(['metadata.name', 'metadata.namespace', ...type.fieldLabels]);
  const requirements = splitTerms(selector).map((term) => {
    const match = /^([^!=]+?)\s*(==|=|!=)\s*(.*)$/.exec(term);
    if (!match) throw errors.badRequest(`invalid field selector: "${term}"`);
    const [, label = '', op, value] = match;
    if (!allowed.has(label)) throw errors.badRequest(`field label not supported: ${label}`);
    return (object: KubeObject) => (fieldValue(object, label) === value) === (op !== '!=');
  });
  return (object) => requirements.every((r) => r(object));
}
