/**
 * Request attributes as RBAC sees them (k8s.io/apiserver RequestInfoFactory): the request log
 * and the RBAC coverage test depend on these.
 */
import { describe, expect, it } from 'vitest';
import { parseRequest } from '../../sandbox/kube/paths.js';

const info = (method: string, target: string) => parseRequest(method, new URL(target, 'https://h'));

describe('parseRequest', () => {
  it.each([
    ['GET', '/api/v1/nodes', { verb: 'list', resource: 'nodes' }],
    ['GET', '/api/v1/nodes/n1', { verb: 'get', resource: 'nodes', name: 'n1' }],
    ['PATCH', '/api/v1/nodes/n1/status', { verb: 'patch', resource: 'nodes', name: 'n1', subresource: 'status' }],
    ['GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Dn1', { verb: 'list', resource: 'pods' }],
    ['GET', '/api/v1/namespaces/shop/pods', { verb: 'list', resource: 'pods', namespace: 'shop' }],
    ['POST', '/api/v1/namespaces/shop/events', { verb: 'create', resource: 'events', namespace: 'shop' }],
    [
      'PUT',
      '/apis/storage.k8s.io/v1/volumeattachments/csi-1/status',
      { verb: 'update', group: 'storage.k8s.io', resource: 'volumeattachments', name: 'csi-1', subresource: 'status' },
    ],
    ['DELETE', '/apis/storage.k8s.io/v1/volumeattachments/csi-1', { verb: 'delete', resource: 'volumeattachments', name: 'csi-1' }],
    ['DELETE', '/api/v1/namespaces/shop/pods', { verb: 'deletecollection', resource: 'pods', namespace: 'shop' }],
    ['GET', '/api/v1/pods?watch=true', { verb: 'watch', resource: 'pods' }],
    ['GET', '/api/v1/watch/namespaces/shop/pods', { verb: 'watch', resource: 'pods', namespace: 'shop' }],
    ['GET', '/api/v1/namespaces/shop', { verb: 'get', resource: 'namespaces', name: 'shop', namespace: 'shop' }],
    ['PUT', '/api/v1/namespaces/shop/finalize', { verb: 'update', resource: 'namespaces', name: 'shop', subresource: 'finalize' }],
  ])('%s %s', (method, target, expected) => {
    expect(info(method, target)).toMatchObject({ isResourceRequest: true, ...expected });
  });

  it.each([['/version'], ['/apis'], ['/apis/storage.k8s.io/v1'], ['/healthz']])('%s is a non-resource request', (target) => {
    expect(info('GET', target)).toMatchObject({ isResourceRequest: false, verb: 'get', resource: '' });
  });
});
