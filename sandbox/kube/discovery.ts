/**
 * Discovery documents: `/version`, the legacy `/api`, `/api/v1`, `/apis`, `/apis/<group>[/<version>]`
 * lists, and the aggregated form (apidiscovery.k8s.io v2/v2beta1) that kubectl asks for first.
 */
import { apiVersionOf, groupsServed, resourceTypes, resourceVerbs, statusVerbs, type ResourceType } from './resources.js';

export interface DiscoveryResponse {
  body: unknown;
  contentType?: string;
}

const serverVersion = {
  major: '1',
  minor: '33',
  gitVersion: 'v1.33.0-sandbox',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-01-01T00:00:00Z',
  goVersion: 'go1.24.0',
  compiler: 'gc',
  platform: 'linux/amd64',
};

function apiResources(group: string, version: string) {
  return resourceTypes
    .filter((t) => t.group === group && t.version === version)
    .flatMap((t) => [
      {
        name: t.resource,
        singularName: t.singular,
        namespaced: t.namespaced,
        kind: t.kind,
        verbs: resourceVerbs,
        ...(t.shortNames.length ? { shortNames: t.shortNames } : {}),
      },
      ...(t.hasStatus
        ? [{ name: `${t.resource}/status`, singularName: '', namespaced: t.namespaced, kind: t.kind, verbs: statusVerbs }]
        : []),
    ]);
}

function groupEntry(group: string) {
  const versions = groupsServed()
    .filter((g) => g.group === group)
    .map((g) => ({ groupVersion: `${group}/${g.version}`, version: g.version }));
  return { name: group, versions, preferredVersion: versions[0] };
}

function aggregatedResource(t: ResourceType) {
  const responseKind = { group: t.group, version: t.version, kind: t.kind };
  return {
    resource: t.resource,
    responseKind,
    scope: t.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: t.singular,
    verbs: resourceVerbs,
    ...(t.shortNames.length ? { shortNames: t.shortNames } : {}),
    ...(t.hasStatus ? { subresources: [{ subresource: 'status', responseKind, verbs: statusVerbs }] } : {}),
  };
}

/** The aggregated document for the core group (`/api`) or all named groups (`/apis`). */
function aggregated(legacy: boolean, version: string) {
  const groups = [...new Set(resourceTypes.map((t) => t.group))].filter((g) => (g === '') === legacy);
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: `apidiscovery.k8s.io/${version}`,
    metadata: {},
    items: groups.map((group) => ({
      metadata: { name: group, creationTimestamp: null },
      versions: groupsServed()
        .filter((g) => g.group === group)
        .map((g) => ({
          version: g.version,
          resources: resourceTypes.filter((t) => t.group === group && t.version === g.version).map(aggregatedResource),
          freshness: 'Current',
        })),
    })),
  };
}

/** Which aggregated discovery version the Accept header asks for, if any (v2 preferred). */
function aggregatedVersion(accept: string): string | undefined {
  const wanted = accept.split(',').map((part) => part.replace(/\s/g, ''));
  for (const version of ['v2', 'v2beta1']) {
    if (wanted.some((w) => w.includes('g=apidiscovery.k8s.io') && w.includes(`v=${version}`) && w.includes('as=APIGroupDiscoveryList')))
      return version;
  }
  return undefined;
}

/** The discovery document at `path`, or undefined when `path` is not a discovery path. */
export function discovery(path: string, accept: string, serverAddress: string): DiscoveryResponse | undefined {
  const trimmed = path.replace(/\/+$/, '') || '/';
  if (trimmed === '/version') return { body: serverVersion };
  if (trimmed === '/healthz' || trimmed === '/livez' || trimmed === '/readyz')
    return { body: 'ok', contentType: 'text/plain; charset=utf-8' };
  if (trimmed === '/api' || trimmed === '/apis') {
    const version = aggregatedVersion(accept);
    if (version) {
      return {
        body: aggregated(trimmed === '/api', version),
        contentType: `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`,
      };
    }
    if (trimmed === '/api') {
      return { body: { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] } };
    }
    const groups = [...new Set(resourceTypes.map((t) => t.group))].filter((g) => g !== '').map(groupEntry);
    return { body: { kind: 'APIGroupList', apiVersion: 'v1', groups } };
  }
  if (trimmed === '/api/v1') return { body: { kind: 'APIResourceList', groupVersion: 'v1', resources: apiResources('', 'v1') } };
  const named = /^\/apis\/([^/]+)(?:\/([^/]+))?$/.exec(trimmed);
  if (named) {
    const [, group = '', version] = named;
    if (!groupsServed().some((g) => g.group === group && (version === undefined || g.version === version))) return undefined;
    if (version === undefined) return { body: { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(group) } };
    const example = resourceTypes.find((t) => t.group === group && t.version === version) as ResourceType;
    return {
      body: { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: apiVersionOf(example), resources: apiResources(group, version) },
    };
  }
  return undefined;
}
