/** Filters and pagination shared by the Describe actions, with EC2's limits. */
import { ec2Errors } from '../protocol/errors.js';
import type { Filter } from '../protocol/form.js';

/** EC2 refuses more than 200 values across a call's filters. */
const MAX_FILTER_VALUES = 200;

/** Filter values may use `*` (any run) and `?` (one character), as EC2 allows. */
function globMatcher(pattern: string): (value: string) => boolean {
  if (!/[*?]/.test(pattern)) return (value) => value === pattern;
  const source = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  const regex = new RegExp(`^${source}$`);
  return (value) => regex.test(value);
}

/** The values a resource has for a filter name (empty when it has none). */
export type FilterField<T> = (resource: T, name: string) => string[];

export function applyFilters<T>(resources: T[], filters: Filter[], field: FilterField<T>, knownNames: readonly string[]): T[] {
  const total = filters.reduce((sum, filter) => sum + filter.values.length, 0);
  if (total > MAX_FILTER_VALUES) throw ec2Errors.filterLimit();
  for (const filter of filters) {
    const known = knownNames.includes(filter.name) || filter.name === 'tag-key' || filter.name.startsWith('tag:');
    if (!known) throw ec2Errors.invalidFilter(filter.name);
  }
  return resources.filter((resource) =>
    filters.every((filter) => {
      const have = field(resource, filter.name);
      const matchers = filter.values.map(globMatcher);
      return have.some((value) => matchers.some((matches) => matches(value)));
    }),
  );
}

/** Tag filters common to every resource: `tag:<key>` and `tag-key`. */
export function tagField(tags: Map<string, string>, name: string): string[] {
  if (name === 'tag-key') return [...tags.keys()];
  const value = name.startsWith('tag:') ? tags.get(name.slice(4)) : undefined;
  return value === undefined ? [] : [value];
}

export interface Page<T> {
  items: T[];
  nextToken?: string;
}

/** An opaque token carrying the offset of the next item. */
export function paginate<T>(
  items: T[],
  maxResults: number | undefined,
  nextToken: string | undefined,
  limits: { min: number; max: number },
): Page<T> {
  if (maxResults === undefined && nextToken === undefined) return { items };
  const size = maxResults ?? limits.max;
  if (size < limits.min || size > limits.max) {
    throw ec2Errors.invalidParameter(
      `Value (${size}) for parameter maxResults is invalid. Expecting a value between ${limits.min} and ${limits.max}.`,
    );
  }
  const start = nextToken === undefined ? 0 : decodeToken(nextToken, items.length);
  const end = start + size;
  return { items: items.slice(start, end), nextToken: end < items.length ? encodeToken(end) : undefined };
}

function encodeToken(offset: number): string {
  return Buffer.from(JSON.stringify({ offset })).toString('base64url');
}

function decodeToken(token: string, length: number): number {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { offset?: unknown };
    if (typeof parsed.offset === 'number' && Number.isInteger(parsed.offset) && parsed.offset >= 0 && parsed.offset <= length)
      return parsed.offset;
  } catch {
    // fall through: any malformed token is refused the same way
  }
  throw ec2Errors.paginationToken(token);
}
