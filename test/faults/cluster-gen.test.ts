/** The generated cluster is realistic and reproducible: the demo, the fault suite and the benchmark rely on it. */
import { describe, expect, it } from 'vitest';
import { generateCluster } from '../../sandbox/generate/cluster.js';
import { clusterObjects } from '../../sandbox/generate/kube-objects.js';
import { seedEc2 } from '../../sandbox/generate/seed.js';
import { ManualClock } from '../../sandbox/clock.js';
import { DEFAULT_MODEL_CONFIG, World } from '../../sandbox/ec2/state/model.js';
import { attachmentState } from '../../sandbox/ec2/state/lifecycle.js';

const cluster = (nodes = 12) => generateCluster({ seed: 7, nodes, pendingPods: 2, unscheduledPods: 1 });

describe('generateCluster', () => {
  it('is reproduced exactly from its seed, and differs for another seed', () => {
    expect(cluster()).toEqual(cluster());
    expect(generateCluster({ seed: 8, nodes: 12 }).nodes[0]?.instanceId).not.toBe(cluster().nodes[0]?.instanceId);
  });

  it('spreads nodes over three zones and gives each about ten pods and four volumes', () => {
    const c = generateCluster({ seed: 1, nodes: 30 });
    expect(new Set(c.nodes.map((n) => n.zone)).size).toBe(3);
    expect(c.pods.length).toBeGreaterThanOrEqual(300);
    expect(c.volumes.filter((v) => !v.multiAttach)).toHaveLength(120);
  });

  it('puts every volume in its node zone, so EC2 would accept the attachment', () => {
    const c = cluster();
    const zoneOf = new Map(c.nodes.map((n) => [n.name, n.zone]));
    const volumes = new Map(c.volumes.map((v) => [v.volumeId, v]));
    for (const a of c.attached) expect(volumes.get(a.volumeId)?.zone).toBe(zoneOf.get(a.nodeName));
  });

  it('places the members of a StatefulSet on different nodes', () => {
    const members = cluster().pods.filter((p) => p.owner.kind === 'StatefulSet' && p.phase === 'Running' && p.owner.name === 'postgres-0');
    expect(members.map((p) => p.name)).toEqual(['postgres-0-0', 'postgres-0-1', 'postgres-0-2']);
    expect(new Set(members.map((p) => p.nodeName)).size).toBe(3);
  });

  it('has one io2 Multi-Attach RWX block volume attached to three nodes of one zone', () => {
    const c = cluster();
    const shared = c.volumes.filter((v) => v.multiAttach);
    expect(shared).toMatchObject([{ volumeType: 'io2', accessModes: ['ReadWriteMany'], volumeMode: 'Block' }]);
    const nodes = c.attached.filter((a) => a.volumeId === shared[0]?.volumeId).map((a) => a.nodeName);
    expect(nodes).toHaveLength(3);
    expect(new Set(nodes.map((n) => c.nodes.find((x) => x.name === n)?.zone)).size).toBe(1);
  });

  it('leaves pending pods without attachments, scheduled or not', () => {
    const pending = cluster().pods.filter((p) => p.phase === 'Pending');
    expect(pending.filter((p) => p.nodeName !== undefined)).toHaveLength(2);
    expect(pending.filter((p) => p.nodeName === undefined)).toHaveLength(1);
    const attached = new Set(cluster().attached.map((a) => a.volumeId));
    const claims = new Set(pending.flatMap((p) => p.claims));
    expect(cluster().volumes.filter((v) => claims.has(v.claim.name) && attached.has(v.volumeId))).toEqual([]);
  });

  it('gives each device name once per node', () => {
    const keys = cluster().attached.map((a) => `${a.nodeName} ${a.device}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('seeding', () => {
  it('writes nodes that report their pre-attached volumes, and a VolumeAttachment for each', () => {
    const c = cluster();
    const objects = clusterObjects(c) as { kind: string; status?: { volumesAttached?: unknown[] } }[];
    const reported = objects.filter((o) => o.kind === 'Node').flatMap((o) => o.status?.volumesAttached ?? []);
    expect(reported).toHaveLength(c.attached.length);
    expect(objects.filter((o) => o.kind === 'VolumeAttachment')).toHaveLength(c.attached.length);
  });

  it('attaches the pre-attached volumes in EC2 and leaves the others available', () => {
    const c = cluster();
    const world = new World(DEFAULT_MODEL_CONFIG, new ManualClock());
    seedEc2(world, c);
    const attachedNow = [...world.volumes.values()]
      .flatMap((v) => [...v.attachments.values()])
      .filter((a) => !a.device.endsWith('xvda') && attachmentState(a, world.clock.now(), world.config.delays) === 'attached');
    expect(attachedNow).toHaveLength(c.attached.length);
    expect(world.instances.size).toBe(c.nodes.length);
  });
});
