import { describe, expect, it } from 'vitest';
import type { KubePod } from '../../lambda/core/kube.js';
import { claimLookup, claimNamesOf, ephemeralClaimName, volumesOfPod } from '../../lambda/core/pod-volumes.js';
import { pod, pv, pvc, vol } from './builders.js';

describe('claimNamesOf', () => {
  it.each<[string, KubePod, string[]]>([
    ['a PVC volume names its claim', pod('web', { claims: ['data'] }), ['data']],
    ['a generic ephemeral volume names <pod>-<volume>', pod('web', { ephemeral: ['cache'] }), ['web-cache']],
    ['a claim used twice is named once', pod('web', { claims: ['data', 'data'] }), ['data']],
    [
      'inline and other volumes name no claim',
      pod('web', { inline: [{ name: 'scratch', volumeID: vol(1) }], other: [{ name: 'tmp', emptyDir: {} }] }),
      [],
    ],
    ['a pod without volumes names none', { metadata: { name: 'bare' } }, []],
    [
      "a nameless pod's ephemeral claim has an empty pod part",
      { metadata: {}, spec: { volumes: [{ name: 'cache', ephemeral: {} }] } },
      ['-cache'],
    ],
  ])('%s', (_name, input, expected) => {
    expect(claimNamesOf(input)).toEqual(expected);
  });

  it("the ephemeral claim name is upstream's <pod>-<volume>", () => {
    expect(ephemeralClaimName('web-0', 'scratch')).toBe('web-0-scratch');
  });
});

describe('volumesOfPod: every EBS volume a pod names', () => {
  const lookup = claimLookup(
    [
      pvc('data'),
      pvc('web-cache', { ownerUid: 'uid-pod-web' }),
      pvc('taken-cache', { pv: 'pv-web-cache', ownerUid: 'uid-someone-else' }),
      pvc('loose', { pv: null }),
    ],
    [pv('pv-data', { volumeId: vol(1) }), pv('pv-web-cache', { volumeId: vol(2) }), pv('pv-nfs', { source: 'nfs' })],
  );
  it.each<[string, KubePod, string[]]>([
    [
      'a bound claim, an owned ephemeral claim and an inline volume',
      pod('web', { claims: ['data'], ephemeral: ['cache'], inline: [{ name: 's', volumeID: vol(3) }] }),
      [vol(1), vol(2), vol(3)],
    ],
    ['a terminated pod still names its volumes', pod('web', { claims: ['data'], phase: 'Succeeded' }), [vol(1)]],
    ['an unbound or missing claim names nothing', pod('web', { claims: ['loose', 'missing'] }), []],
    ['an ephemeral claim the pod does not own names nothing', pod('taken', { ephemeral: ['cache'] }), []],
    ['an invalid inline id names nothing', pod('web', { inline: [{ name: 's', volumeID: 'disk-1' }] }), []],
    ['a pod without a spec names nothing', { metadata: { name: 'web', namespace: 'default' } }, []],
    [
      'a pod without a namespace names nothing',
      { metadata: { name: 'web' }, spec: { volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'data' } }] } },
      [],
    ],
  ])('%s', (_name, input, expected) => {
    expect(volumesOfPod(input, lookup)).toEqual(expected);
  });
});
