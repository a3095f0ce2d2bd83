/**
 * Events are checked against the API server's own naming rules (apimachinery validation) before
 * any call: pod and node names are DNS-1123 subdomains, namespaces DNS-1123 labels, instance ids
 * EC2's shape. Each row is one event as the exporter or EC2 would deliver it.
 */
import { describe, expect, it } from 'vitest';
import { Ec2StateChangeSchema, KubernetesEventSchema } from '../../lambda/handlers/event-schemas.js';
import { ec2StateChange, kubernetesEvent, type InvolvedObject } from '../../sandbox/events.js';

const AT = Date.UTC(2026, 2, 2, 9);
const accepts = (object: InvolvedObject) => KubernetesEventSchema.safeParse(kubernetesEvent(object, 'Scheduled', 'm', AT)).success;
const pod = (namespace: string | undefined, name: string): InvolvedObject => ({
  kind: 'Pod',
  name,
  ...(namespace === undefined ? {} : { namespace }),
});

describe('Kubernetes names in events', () => {
  it.each<[string, InvolvedObject, boolean]>([
    ['a plain pod', pod('default', 'db-0'), true],
    ['a pod name with dots (a subdomain)', pod('default', 'web.v1.example'), true],
    ['a pod name of 253 characters', pod('default', `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`), true],
    ['a pod name of 254 characters', pod('default', `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(62)}`), false],
    ['a pod name with upper case', pod('default', 'DB-0'), false],
    ['a pod name starting with a dash', pod('default', '-db'), false],
    ['a pod name ending with a dot', pod('default', 'db.'), false],
    ['a pod name with an underscore', pod('default', 'db_0'), false],
    ['a pod name with a slash (path injection)', pod('default', '../nodes/x'), false],
    ['a namespace of 63 characters', pod('n'.repeat(63), 'db-0'), true],
    ['a namespace of 64 characters', pod('n'.repeat(64), 'db-0'), false],
    ['a namespace with a dot (labels have none)', pod('kube.system', 'db-0'), false],
    ['a pod without a namespace', pod(undefined, 'db-0'), false],
    ['a pod with the empty namespace', pod('', 'db-0'), false],
    ['a node', { kind: 'Node', name: 'ip-10-0-1-23.eu-west-1.compute.internal' }, true],
    ['a node with the empty namespace Go serializes', { kind: 'Node', namespace: '', name: 'node-1' }, true],
    ['a node with a namespace', { kind: 'Node', namespace: 'default', name: 'node-1' }, false],
    ['a node name with upper case', { kind: 'Node', name: 'Node-1' }, false],
    ['an empty node name', { kind: 'Node', name: '' }, false],
  ])('%s: accepted %s', (_name, object, expected) => {
    expect(accepts(object)).toBe(expected);
  });
});

describe('EC2 instance ids in events', () => {
  it.each<[string, boolean]>([
    ['i-1234567890abcdef0', true],
    ['i-12345678', true],
    ['i-1234567890ABCDEF0', false],
    ['i-123456789', false],
    ['web-server-1', false],
    ['vol-1234567890abcdef0', false],
  ])('%s: accepted %s', (instanceId, expected) => {
    expect(Ec2StateChangeSchema.safeParse(ec2StateChange(instanceId, 'stopped', AT)).success).toBe(expected);
  });
});
