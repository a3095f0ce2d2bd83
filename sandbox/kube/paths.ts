/**
 * Parses a request into the attributes RBAC sees (k8s.io/apiserver RequestInfoFactory):
 * verb, API group/version, resource, subresource, namespace and name.
 */

export interface RequestInfo {
  isResourceRequest: boolean;
  /** RBAC verb: get, list, watch, create, update, patch, delete, deletecollection (non-resource: lowercased method). */
  verb: string;
  path: string;
  group: string;
  version: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

// Namespace subresources stay on the namespace itself rather than naming a resource inside it.
const namespaceSubresources = new Set(['status', 'finalize']);

function resourceVerb(method: string, hasName: boolean, watch: boolean): string {
  switch (method) {
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return hasName ? 'delete' : 'deletecollection';
    default:
      return watch ? 'watch' : hasName ? 'get' : 'list';
  }
}

/** `url` is the request target (path and query); segments are percent-decoded. */
export function parseRequest(method: string, url: URL): RequestInfo {
  const path = url.pathname;
  const nonResource: RequestInfo = { isResourceRequest: false, verb: method.toLowerCase(), path, group: '', version: '', resource: '' };
  const segments = path
    .split('/')
    .filter((s) => s !== '')
    .map((s) => decodeURIComponent(s));
  let parts: string[];
  let group = '';
  let version: string;
  if (segments[0] === 'api' && segments.length >= 3) {
    version = segments[1] ?? '';
    parts = segments.slice(2);
  } else if (segments[0] === 'apis' && segments.length >= 4) {
    group = segments[1] ?? '';
    version = segments[2] ?? '';
    parts = segments.slice(3);
  } else {
    return nonResource;
  }
  let watch = url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1';
  if (parts[0] === 'watch') {
    watch = true;
    parts = parts.slice(1);
  }
  let namespace: string | undefined;
  if (parts[0] === 'namespaces' && parts.length > 1) {
    namespace = parts[1];
    if (parts.length > 2 && !namespaceSubresources.has(parts[2] ?? '')) parts = parts.slice(2);
  }
  const [resource = '', name, subresource] = parts;
  if (parts.length > 3 || resource === '') return nonResource;
  return {
    isResourceRequest: true,
    verb: resourceVerb(method, name !== undefined, watch),
    path,
    group,
    version,
    resource,
    ...(subresource !== undefined ? { subresource } : {}),
    ...(namespace !== undefined ? { namespace } : {}),
    ...(name !== undefined ? { name } : {}),
  };
}
