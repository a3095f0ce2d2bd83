/**
 * List requests: `limit`/`continue` pagination over a consistent snapshot, the
 * `resourceVersion`/`resourceVersionMatch` semantics of the API concepts page, and selectors.
 */
import { decodeContinue, encodeContinue } from './continue-token.js';
import { apiVersionOf, type ResourceType } from './resources.js';
import { parseFieldSelector, parseLabelSelector } from './selectors.js';
import { errors } from './status.js';
import type { KubeObject, VersionedStore } from './store.js';

export interface ListResponse {
  kind: string;
  apiVersion: string;
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
  items: KubeObject[];
}

function parseLimit(value: string | null): number | undefined {
  if (value === null || value === '') return undefined;
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 0) throw errors.badRequest(`invalid limit: ${value}`);
  return limit === 0 ? undefined : limit;
}

/** The revision to read, per the resourceVersion table of the API concepts page. */
function snapshotRevision(store: VersionedStore, query: URLSearchParams, limit: number | undefined): number {
  const current = store.currentRv();
  const asked = query.get('resourceVersion') ?? '';
  const match = query.get('resourceVersionMatch') ?? '';
  if (asked === '' || asked === '0') {
    if (match === 'Exact') throw errors.badRequest('resourceVersionMatch "Exact" is forbidden for resourceVersion "0" or unset');
    return current;
  }
  const rv = Number(asked);
  if (!Number.isInteger(rv) || rv < 0) throw errors.badRequest(`invalid resource version: ${asked}`);
  if (rv > current) throw errors.tooLargeResourceVersion(rv, current);
  const exact = match === 'Exact' || (match === '' && limit !== undefined);
  if (!exact) return current;
  if (rv < store.compactedRv()) throw errors.gone(`too old resource version: ${rv} (${store.compactedRv()})`);
  return rv;
}

export function listObjects(
  store: VersionedStore,
  type: ResourceType,
  namespace: string | undefined,
  query: URLSearchParams,
): ListResponse {
  const limit = parseLimit(query.get('limit'));
  const label = parseLabelSelector(query.get('labelSelector'));
  const field = parseFieldSelector(query.get('fieldSelector'), type);
  const selective = Boolean(query.get('labelSelector') || query.get('fieldSelector'));
  const continueValue = query.get('continue');
  let atRv: number;
  let afterKey: string | undefined;
  let page = 1;
  if (continueValue) {
    if ((query.get('resourceVersion') ?? '') !== '' && query.get('resourceVersion') !== '0') {
      throw errors.badRequest('specifying resource version is not allowed when using continue');
    }
    const token = decodeContinue(continueValue);
    if (token.rv < store.compactedRv()) throw errors.expired(encodeContinue({ ...token, rv: store.currentRv() }));
    ({ rv: atRv, start: afterKey, page } = token);
  } else {
    atRv = snapshotRevision(store, query, limit);
  }
  const result = store.list({
    resource: type.resource,
    ...(type.namespaced && namespace !== undefined ? { namespace } : {}),
    atRv,
    ...(afterKey !== undefined ? { afterKey } : {}),
    ...(limit !== undefined ? { limit } : {}),
    filter: (object) => label(object) && field(object),
    countRemaining: !selective,
  });
  const metadata: ListResponse['metadata'] = { resourceVersion: String(atRv) };
  if (result.lastKey !== undefined) {
    metadata.continue = encodeContinue({ rv: atRv, start: result.lastKey, page: page + 1 });
    if (result.remaining !== undefined) metadata.remainingItemCount = result.remaining;
  }
  // Items of a list carry no kind/apiVersion on the wire; the list does.
  const items = result.items.map(({ kind: _k, apiVersion: _a, ...rest }) => rest as KubeObject);
  return { kind: `${type.kind}List`, apiVersion: apiVersionOf(type), metadata, items };
}
