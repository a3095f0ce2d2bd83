import { describe, expect, it } from 'vitest';
import { buildDesiredState } from '../../lambda/core/desired-state.js';
import type { ClusterSnapshot } from '../../lambda/core/kube.js';
import { SKIP_CODES, type SkipCode } from '../../lambda/core/reasons.js';
import { fresh, instanceOf, node, pod, pv, pvc, snapshot, uname, vol } from './builders.js';

/** node-a (managed, Ready) with pod `web` claiming `data`, bound to PV pv-data on vol(1). */
const BASE: ClusterSnapshot = snapshot({
  nodes: [node('node-a')],
  pods: [pod('web', { claims: ['data'] })],
  pvcs: [pvc('data')],
  pvs: [pv('pv-data', { volumeId: vol(1) })],
});

const base = (): ClusterSnapshot => fresh(BASE);
const WEB = { namespace: 'default', name: 'web', uid: 'uid-pod-web' };

describe('buildDesiredState: what is desired', () => {
  it('a scheduled pod on a managed node wants its CSI EBS volume there', () => {
    const state = buildDesiredState(base());
    expect(state.attachments).toEqual([
      {
        volumeId: vol(1),
        uniqueName: uname(vol(1)),
        nodeName: 'node-a',
        instanceId: instanceOf('node-a'),
        pods: [WEB],
        accessModes: ['ReadWriteOnce'],
        multiAttach: false,
        source: { kind: 'pv', pvName: 'pv-data' },
      },
    ]);
    expect(state).toMatchObject({ skipped: [], problems: [], complete: true });
    expect(state.scope).toBeUndefined();
    expect(state.nodes.get('node-a')?.managed).toBe(true);
  });

  it.each<
    [string, (s: ClusterSnapshot) => void, Partial<{ volumeId: string; multiAttach: boolean; accessModes: string[]; source: object }>]
  >([
    [
      'an in-tree awsElasticBlockStore PV is translated to the CSI unique name',
      (s) => {
        s.pvs = [pv('pv-data', { source: 'in-tree', volumeId: 'aws://us-east-1a/vol-0123abcd' })];
      },
      { volumeId: 'vol-0123abcd' },
    ],
    [
      'an RWX block PV is multi-attach',
      (s) => {
        s.pvs = [pv('pv-data', { volumeId: vol(1), modes: ['ReadWriteMany'], volumeMode: 'Block' })];
      },
      { multiAttach: true, accessModes: ['ReadWriteMany'] },
    ],
    [
      'an RWOP PV is exclusive',
      (s) => {
        s.pvs = [pv('pv-data', { volumeId: vol(1), modes: ['ReadWriteOncePod'] })];
      },
      { multiAttach: false },
    ],
    [
      'RWO mixed with RWX (block) is exclusive, as kcm decides',
      (s) => {
        s.pvs = [pv('pv-data', { volumeId: vol(1), modes: ['ReadWriteMany', 'ReadWriteOnce'], volumeMode: 'Block' })];
      },
      { multiAttach: false, accessModes: ['ReadWriteOnce', 'ReadWriteMany'] },
    ],
    [
      'an inline awsElasticBlockStore volume is exclusive and named by its pod volume',
      (s) => {
        s.pods = [pod('web', { inline: [{ name: 'scratch', volumeID: 'vol-0123abcd' }] })];
      },
      { volumeId: 'vol-0123abcd', multiAttach: false, accessModes: [], source: { kind: 'inline', podVolumeName: 'scratch' } },
    ],
    [
      'a generic ephemeral volume uses the PVC <pod>-<volume> owned by the pod',
      (s) => {
        s.pods = [pod('web', { ephemeral: ['cache'] })];
        s.pvcs = [pvc('web-cache', { ownerUid: 'uid-pod-web' })];
        s.pvs = [pv('pv-web-cache', { volumeId: vol(7) })];
      },
      { volumeId: vol(7), source: { kind: 'pv', pvName: 'pv-web-cache' } },
    ],
    [
      'a deleted pod with a running container still counts',
      (s) => {
        s.pods = [pod('web', { claims: ['data'], deleting: true, containers: ['running'] })];
      },
      { volumeId: vol(1) },
    ],
  ])('%s', (_name, change, expected) => {
    const s = base();
    change(s);
    const state = buildDesiredState(s);
    expect(state.skipped).toEqual([]);
    expect(state.attachments).toHaveLength(1);
    expect(state.attachments[0]).toMatchObject(expected);
  });

  it('pods sharing a volume on one node make one attachment listing every pod, sorted', () => {
    const s = base();
    s.pods = [pod('web-2', { claims: ['data'] }), pod('web-1', { claims: ['data'] })];
    const [only, ...rest] = buildDesiredState(s).attachments;
    expect(rest).toEqual([]);
    expect(only!.pods.map((p) => p.name)).toEqual(['web-1', 'web-2']);
  });

  it('one pod naming a volume twice is listed once', () => {
    const s = base();
    s.pods = [pod('web', { claims: ['data'], inline: [{ name: 'again', volumeID: vol(1) }] })];
    const [only] = buildDesiredState(s).attachments;
    expect(only!.pods).toEqual([WEB]);
    expect(only!.multiAttach).toBe(false);
  });

  // Invariant 1: a volume is shared only if every reference allows it, whichever pod comes first.
  it.each([
    {
      first: 'the ReadWriteMany claim',
      pods: () => [pod('a-claim', { claims: ['data'] }), pod('b-inline', { inline: [{ name: 'raw', volumeID: vol(1) }] })],
    },
    {
      first: 'the inline volume',
      pods: () => [pod('a-inline', { inline: [{ name: 'raw', volumeID: vol(1) }] }), pod('b-claim', { claims: ['data'] })],
    },
  ])('a volume both a ReadWriteMany claim and an inline volume name is exclusive ($first read first)', ({ pods }) => {
    const s = base();
    s.pvs = [pv('pv-data', { modes: ['ReadWriteMany'], volumeMode: 'Block' })];
    s.pods = pods();
    const [only, ...rest] = buildDesiredState(s).attachments;
    expect(rest).toEqual([]);
    expect(only).toMatchObject({ volumeId: vol(1), multiAttach: false, accessModes: ['ReadWriteMany'] });
    expect(only!.pods).toHaveLength(2);
  });

  it('a volume wanted on two nodes makes two attachments sorted by volume then node', () => {
    const s = base();
    s.nodes = [node('node-b'), node('node-a')];
    s.pods = [
      pod('z', { claims: ['data'], node: 'node-b' }),
      pod('y', { claims: ['data'], node: 'node-a' }),
      pod('x', { inline: [{ name: 'i', volumeID: vol(0) }], node: 'node-b' }),
    ];
    const state = buildDesiredState(s);
    expect(state.attachments.map((a) => [a.volumeId, a.nodeName])).toEqual([
      [vol(0), 'node-b'],
      [vol(1), 'node-a'],
      [vol(1), 'node-b'],
    ]);
  });

  it('carries completeness and scope through', () => {
    const scope = { volumes: [vol(1)], nodes: ['node-a'] };
    expect(buildDesiredState(base(), { complete: false, scope })).toMatchObject({ complete: false, scope });
  });
});

describe('buildDesiredState: what is left out, silently', () => {
  it.each<[string, (s: ClusterSnapshot) => void]>([
    [
      'an unscheduled pod',
      (s) => {
        s.pods = [pod('web', { claims: ['data'], node: null })];
      },
    ],
    [
      'a Succeeded pod',
      (s) => {
        s.pods = [pod('web', { claims: ['data'], phase: 'Succeeded' })];
      },
    ],
    [
      'a Failed pod',
      (s) => {
        s.pods = [pod('web', { claims: ['data'], phase: 'Failed' })];
      },
    ],
    [
      'a deleted pod whose containers all stopped',
      (s) => {
        s.pods = [pod('web', { claims: ['data'], deleting: true, containers: ['terminated'] })];
      },
    ],
    [
      'a PV of another CSI driver',
      (s) => {
        s.pvs = [pv('pv-data', { source: 'other-csi' })];
      },
    ],
    [
      'an NFS PV',
      (s) => {
        s.pvs = [pv('pv-data', { source: 'nfs' })];
      },
    ],
    [
      'a non-EBS PV even with a mismatched claimRef',
      (s) => {
        s.pvs = [pv('pv-data', { source: 'nfs', claimUid: 'other' })];
      },
    ],
    [
      'non-EBS inline volumes',
      (s) => {
        s.pods = [
          pod('web', {
            other: [
              { name: 'cfg', configMap: { name: 'c' } },
              { name: 'tmp', emptyDir: {} },
            ],
          }),
        ];
      },
    ],
  ])('%s', (_name, change) => {
    const s = base();
    change(s);
    expect(buildDesiredState(s)).toMatchObject({ attachments: [], skipped: [], problems: [] });
  });
});

const SKIP_ROWS: [string, (s: ClusterSnapshot) => void, SkipCode, RegExp][] = [
  [
    'a missing PVC',
    (s) => {
      s.pvcs = [];
    },
    'claim-not-found',
    /^PVC default\/data not found$/,
  ],
  [
    'an unbound PVC',
    (s) => {
      s.pvcs = [pvc('data', { pv: null })];
    },
    'claim-unbound',
    /^PVC default\/data is not bound \(phase Pending/,
  ],
  [
    'a PVC that names a PV but is not Bound yet',
    (s) => {
      s.pvcs = [pvc('data', { phase: 'Lost' })];
    },
    'claim-unbound',
    /not bound \(phase Lost/,
  ],
  [
    'a PVC without status',
    (s) => {
      s.pvcs = [{ metadata: { name: 'data', namespace: 'default' } }];
    },
    'claim-unbound',
    /not bound \(phase unknown, volumeName ""\)/,
  ],
  [
    'a missing PV',
    (s) => {
      s.pvs = [];
    },
    'pv-not-found',
    /^PV pv-data bound to PVC default\/data not found$/,
  ],
  [
    'a PV without claimRef',
    (s) => {
      s.pvs = [pv('pv-data', { claim: null })];
    },
    'pv-not-bound-back',
    /^PV pv-data has no claimRef/,
  ],
  [
    "a PV whose claimRef UID is another claim's",
    (s) => {
      s.pvs = [pv('pv-data', { claimUid: 'uid-old' })];
    },
    'pv-claim-mismatch',
    /^PV pv-data claimRef UID "uid-old" does not match PVC default\/data UID "uid-pvc-data"$/,
  ],
  [
    'an ephemeral PVC not owned by the pod',
    (s) => {
      s.pods = [pod('web', { ephemeral: ['cache'] })];
      s.pvcs = [pvc('web-cache', { ownerUid: 'someone-else' })];
    },
    'claim-not-owned',
    /^PVC default\/web-cache was not created for pod default\/web \(pod is not its owner\)$/,
  ],
  [
    'a filesystem ReadWriteMany PV, which the EBS CSI driver refuses on every node',
    (s) => {
      s.pvs = [pv('pv-data', { modes: ['ReadWriteMany'], volumeMode: 'Filesystem' })];
    },
    'capability-refused',
    /^PV pv-data \(ReadWriteMany as Filesystem\) is refused by the EBS CSI driver: rpc error: code = InvalidArgument desc = Volume capability not supported$/,
  ],
  [
    'a ReadOnlyMany PV, block or not',
    (s) => {
      s.pvs = [pv('pv-data', { modes: ['ReadOnlyMany'], volumeMode: 'Block' })];
    },
    'capability-refused',
    /^PV pv-data \(ReadOnlyMany as Block\) is refused by the EBS CSI driver: rpc error: code = InvalidArgument desc = Volume capability not supported$/,
  ],
  [
    'a PV without access modes (external-attacher cannot ask for it)',
    (s) => {
      s.pvs = [pv('pv-data', { modes: [] })];
    },
    'capability-refused',
    /^PV pv-data \(no access modes as Filesystem\) is refused by the EBS CSI driver: unsupported AccessMode combination: \[\]$/,
  ],
  [
    'a pod on an unknown node',
    (s) => {
      s.nodes = [];
    },
    'node-not-found',
    /^pod default\/web is on node node-a not found$/,
  ],
  [
    'a pod on an unmanaged node',
    (s) => {
      s.nodes = [node('node-a', { managed: false })];
    },
    'node-unmanaged',
    /not managed by the attach\/detach controller \(no volumes.kubernetes.io\/controller-managed-attach-detach annotation\)/,
  ],
  [
    'a pod on a node without a valid instance id',
    (s) => {
      s.nodes = [node('node-a', { providerID: null })];
    },
    'node-no-instance',
    /node node-a has no valid EC2 instance id/,
  ],
];

describe('buildDesiredState: skipped volumes carry a stable code and a reason', () => {
  it.each(SKIP_ROWS)('%s', (_name, change, code, reason) => {
    const s = base();
    change(s);
    const state = buildDesiredState(s);
    expect(state.attachments).toEqual([]);
    expect(state.skipped).toHaveLength(1);
    expect(state.skipped[0]!.pod).toEqual({ namespace: 'default', name: 'web', uid: 'uid-pod-web' });
    expect(state.skipped[0]!.code).toBe(code);
    expect(state.skipped[0]!.reason).toMatch(reason);
  });

  it('every skip code has its row here or in the invalid-id rows below', () => {
    const rows = new Set<string>([...SKIP_ROWS.map((row) => row[2]), 'invalid-volume-id']);
    expect([...rows].sort()).toEqual([...SKIP_CODES].sort());
  });

  it("a capability the EBS CSI driver refuses gets kcm's FailedAttachVolume event with the driver's words, and no problem", () => {
    const s = base();
    s.pvs = [pv('pv-data', { modes: ['ReadWriteMany'] })];
    const state = buildDesiredState(s);
    expect(state.skipped[0]!.event).toEqual({
      type: 'Warning',
      reason: 'FailedAttachVolume',
      message: 'AttachVolume.Attach failed for volume "pv-data" : rpc error: code = InvalidArgument desc = Volume capability not supported',
    });
    expect(state.problems).toEqual([]);
  });

  it.each<[string, (s: ClusterSnapshot) => void, string]>([
    [
      'an invalid CSI volumeHandle',
      (s) => {
        s.pvs = [pv('pv-data', { volumeId: 'vol-bogus' })];
      },
      'PV pv-data',
    ],
    [
      'an invalid in-tree volumeID',
      (s) => {
        s.pvs = [pv('pv-data', { source: 'in-tree', volumeId: 'aws://zone/nope' })];
      },
      'PV pv-data',
    ],
    [
      'an invalid inline volumeID',
      (s) => {
        s.pods = [pod('web', { inline: [{ name: 'x', volumeID: 'vol-?' }] })];
      },
      'inline volume x of pod default/web',
    ],
  ])('%s is skipped and reported once as a problem, never thrown', (_name, change, where) => {
    const s = base();
    change(s);
    s.pods.push(fresh(s.pods[0]!));
    const state = buildDesiredState(s);
    expect(state.attachments).toEqual([]);
    expect(state.skipped).toHaveLength(2);
    expect(state.skipped[0]!.code).toBe('invalid-volume-id');
    expect(state.skipped[0]!.reason).toContain(`${where} has an invalid EBS volume id`);
    expect(state.problems).toEqual([expect.stringContaining(`${where}: invalid EBS volume id`)]);
  });

  it.each<[string, (s: ClusterSnapshot) => void, string]>([
    [
      'an ephemeral PVC without owner references',
      (s) => {
        s.pods = [pod('web', { ephemeral: ['cache'] })];
        s.pvcs = [pvc('web-cache')];
      },
      'PVC default/web-cache was not created for pod default/web (pod is not its owner)',
    ],
    [
      'an ephemeral volume of a pod without uid',
      (s) => {
        s.pods = [pod('web', { ephemeral: ['cache'] })];
        delete s.pods[0]!.metadata.uid;
        s.pvcs = [pvc('web-cache', { ownerUid: '' })];
      },
      'PVC default/web-cache was not created for pod default/web (pod is not its owner)',
    ],
    [
      'a claimRef without uid',
      (s) => {
        delete s.pvs[0]!.spec!.claimRef!.uid;
      },
      'PV pv-data claimRef UID "" does not match PVC default/data UID "uid-pvc-data"',
    ],
    [
      'a PVC without uid',
      (s) => {
        delete s.pvcs[0]!.metadata.uid;
      },
      'PV pv-data claimRef UID "uid-pvc-data" does not match PVC default/data UID ""',
    ],
    [
      'a PVC without namespace never matches',
      (s) => {
        delete s.pvcs[0]!.metadata.namespace;
      },
      'PVC default/data not found',
    ],
    [
      'a PVC without name never matches',
      (s) => {
        delete s.pvcs[0]!.metadata.name;
      },
      'PVC default/data not found',
    ],
    [
      'a PV without name never matches',
      (s) => {
        delete s.pvs[0]!.metadata.name;
      },
      'PV pv-data bound to PVC default/data not found',
    ],
  ])('tolerates missing optional fields: %s', (_name, change, reason) => {
    const s = base();
    change(s);
    expect(buildDesiredState(s).skipped.map((k) => k.reason)).toEqual([reason]);
  });

  it('a pod without spec or without volumes wants nothing', () => {
    const s = base();
    s.pods = [
      { metadata: { name: 'bare', namespace: 'default' } },
      { metadata: { name: 'novol', namespace: 'default' }, spec: { nodeName: 'node-a' } },
    ];
    expect(buildDesiredState(s)).toMatchObject({ attachments: [], skipped: [], problems: [] });
  });

  it('a nameless pod is a problem, and the rest of the batch still builds', () => {
    const s = base();
    s.pods.unshift({ metadata: {}, spec: { nodeName: 'node-a' } });
    const state = buildDesiredState(s);
    expect(state.problems).toEqual(['a pod object has no metadata.name or metadata.namespace']);
    expect(state.attachments).toHaveLength(1);
  });

  it('node problems are reported next to pod problems', () => {
    const s = base();
    s.nodes.push(node('node-b', { providerID: 'nope' }));
    expect(buildDesiredState(s).problems).toEqual([expect.stringContaining('node node-b: malformed spec.providerID')]);
  });

  it('a pod on a bad node with a non-EBS volume is not reported at all', () => {
    const s = base();
    s.nodes = [];
    s.pods = [pod('web', { other: [{ name: 'tmp', emptyDir: {} }] })];
    expect(buildDesiredState(s).skipped).toEqual([]);
  });
});
