/**
 * OpenAPI discovery as kubectl reads it. `/openapi/v3` indexes one document per group-version;
 * each has the kinds' schemas and their paths, whose PATCH operations list the `fieldValidation`
 * query parameter with `x-kubernetes-group-version-kind`: that is how kubectl decides the server
 * validates fields itself (it then sends fieldValidation=Strict instead of validating locally).
 * kubectl still downloads `/openapi/v2` (protobuf) before it looks at v3, so a minimal v2
 * document is served too: without definitions, kubectl's local schema check skips every kind.
 */
import { createHash } from 'node:crypto';
import { groupsServed, resourceTypes, type ResourceType } from './resources.js';
import { componentName, schemasFor, type Schema } from './openapi-schemas.js';

interface OpenApiResponse {
  body: unknown;
  contentType?: string;
}

const protobufV2 = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

function gvPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

const query = (name: string): Schema => ({ name, in: 'query', schema: { type: 'string', uniqueItems: true } });
const writeParameters = [query('dryRun'), query('fieldManager'), query('fieldValidation')];

function operation(type: ResourceType, action: string, parameters: Schema[], withBody: boolean): Schema {
  const schema = { $ref: `#/components/schemas/${componentName(type)}` };
  return {
    operationId: `${action}${type.kind}`,
    parameters,
    ...(withBody ? { requestBody: { content: { '*/*': { schema } }, required: true } } : {}),
    responses: { '200': { description: 'OK', content: { 'application/json': { schema } } } },
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': { group: type.group, version: type.version, kind: type.kind },
  };
}

function pathsOf(type: ResourceType): Record<string, Schema> {
  const prefix = `/${gvPath(type.group, type.version)}${type.namespaced ? '/namespaces/{namespace}' : ''}/${type.resource}`;
  const item: Schema = {
    get: operation(type, 'get', [], false),
    put: operation(type, 'put', writeParameters, true),
    patch: operation(type, 'patch', [...writeParameters, query('force')], true),
    delete: operation(type, 'delete', [query('dryRun'), query('gracePeriodSeconds')], false),
  };
  const paths: Record<string, Schema> = {
    [prefix]: {
      get: operation(type, 'list', [query('labelSelector'), query('fieldSelector')], false),
      post: operation(type, 'post', writeParameters, true),
    },
    [`${prefix}/{name}`]: item,
  };
  if (type.hasStatus) paths[`${prefix}/{name}/status`] = { get: operation(type, 'get', [], false), put: item.put, patch: item.patch };
  return paths;
}

function groupVersionDocument(group: string, version: string): Schema {
  const types = resourceTypes.filter((t) => t.group === group && t.version === version);
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.33.0-sandbox' },
    paths: Object.assign({}, ...types.map(pathsOf)) as Record<string, Schema>,
    components: { schemas: schemasFor(types) },
  };
}

/** Documents are built once: the types served never change while the process runs. */
const documents = new Map(
  groupsServed().map(({ group, version }) => {
    const body = groupVersionDocument(group, version);
    const hash = createHash('sha512').update(JSON.stringify(body)).digest('hex').toUpperCase();
    return [gvPath(group, version), { body, hash }] as const;
  }),
);

/** components.schemas of the group-version serving `type`. */
export function schemasOf(type: ResourceType): Record<string, Schema> {
  const document = documents.get(gvPath(type.group, type.version))?.body as { components: { schemas: Record<string, Schema> } };
  return document.components.schemas;
}

/** gnostic's openapi_v2.Document with only `swagger = 1: "2.0"` set, protobuf-encoded. */
function minimalV2Protobuf(): Buffer {
  const swagger = Buffer.from('2.0');
  return Buffer.concat([Buffer.from([0x0a, swagger.length]), swagger]);
}

/** The OpenAPI document at `path`, or undefined when `path` is not an OpenAPI path. */
export function openApi(path: string, accept: string): OpenApiResponse | undefined {
  if (path === '/openapi/v2') {
    if (accept.includes('protobuf')) return { body: minimalV2Protobuf(), contentType: protobufV2.replace('@', '.') };
    return { body: { swagger: '2.0', info: { title: 'Kubernetes', version: 'v1.33.0-sandbox' }, paths: {} } };
  }
  if (path === '/openapi/v3') {
    const paths = Object.fromEntries([...documents].map(([gv, { hash }]) => [gv, { serverRelativeURL: `/openapi/v3/${gv}?hash=${hash}` }]));
    return { body: { paths } };
  }
  const document = path.startsWith('/openapi/v3/') ? documents.get(path.slice('/openapi/v3/'.length)) : undefined;
  return document && { body: document.body };
}
