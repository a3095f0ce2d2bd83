/**
 * Server-side field validation (`fieldValidation=Strict`, what kubectl sends when OpenAPI v3 says
 * the server supports it): fields the kind's schema does not know make the write a 400
 * `strict decoding error`, as the apiserver's strict JSON decoder answers.
 */
import { componentName, type Schema } from './openapi-schemas.js';
import type { ResourceType } from './resources.js';
import { errors } from './status.js';

type Schemas = Record<string, Schema>;

function resolve(schema: Schema, schemas: Schemas): Schema {
  const ref = schema.$ref;
  return typeof ref === 'string' ? (schemas[ref.split('/').at(-1) as string] ?? {}) : schema;
}

function collect(value: unknown, schema: Schema, schemas: Schemas, path: string, out: string[]): void {
  const resolved = resolve(schema, schemas);
  if (resolved['x-kubernetes-preserve-unknown-fields'] === true || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    const items = resolved.items as Schema | undefined;
    if (items) value.forEach((item, index) => collect(item, items, schemas, `${path}[${index}]`, out));
    return;
  }
  const properties = resolved.properties as Record<string, Schema> | undefined;
  const additional = resolved.additionalProperties as Schema | undefined;
  for (const [key, child] of Object.entries(value)) {
    const field = path === '' ? key : `${path}.${key}`;
    const childSchema = properties?.[key] ?? additional;
    if (childSchema) collect(child, childSchema, schemas, field, out);
    else if (properties) out.push(field);
  }
}

/** Throws 400 when `object` has fields its kind's schema lacks; `schemas` are the kind's group-version components. */
export function checkStrictFields(type: ResourceType, object: unknown, schemas: Schemas): void {
  const root = schemas[componentName(type)];
  if (!root) return;
  const unknown: string[] = [];
  collect(object, root, schemas, '', unknown);
  if (unknown.length > 0) throw errors.badRequest(`strict decoding error: ${unknown.map((f) => `unknown field "${f}"`).join(', ')}`);
}
