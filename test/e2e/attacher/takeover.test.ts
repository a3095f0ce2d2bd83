/**
 * Taking over a live EKS cluster from the EBS CSI `csi-attacher` sidecar, and handing it back
 * (docs/eks.md, Steps 2 to 4), through the real handlers: the simulated sidecar attached 50
 * volumes for pods kcm placed; our controller takes the Lease and adopts them without an EC2
 * mutating call or a VolumeAttachment write; then works as usual; then, after the rollback, the
 * sidecar takes the Lease back and goes on with no detach storm; a second takeover corrects the first
 * one's stale records from EC2. kcm and the kubelets are stepped
 * between passes; time moves by the sandbox clock only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningClock } from '../../../sandbox/clock.js';
import { lambdaContext } from '../../../sandbox/events.js';
import type { Kubelets } from '../../../sandbox/kubelets.js';
import { SIDECAR_LEASE } from '../../../sandbox/lease-election.js';
import type { Handlers } from '../../../sandbox/local-stack.js';
import { runSidecarFor, type Sidecar } from '../../../sandbox/sidecar/sidecar.js';
import type { World, WorldVolume } from '../../../sandbox/world.js';
import { startSidecarWorld, type SidecarWorld } from './fixture.js';

const S = 1000;
const PODS = 50;
const US = 'ebs-attach-detach/world';
const SIDECAR_POD = 'ebs-csi-controller-6f7d9c8b5-x2k4p';

interface Va {
  metadata: { name: string; resourceVersion: string; finalizers?: string[]; deletionTimestamp?: string };
  spec: { nodeName: string; source: { persistentVolumeName?: string } };
  status?: { attached?: boolean; attachmentMetadata?: { devicePath?: string } };
}

let world: World;
let clock: RunningClock;
let handlers: Handlers;
let kubelets: Kubelets;
let election: SidecarWorld['election'];
let sidecar: Sidecar;
const volumes = new Map<string, WorldVolume>();

const vas = () => world.kube.list('VolumeAttachment') as Va[];
const vaOf = (pod: string) => vas().find((va) => va.spec.source.persistentVolumeName === volumes.get(pod)?.pvName);
const holder = () =>
  (world.kube.get('Lease', SIDECAR_LEASE.namespace, SIDECAR_LEASE.name) as { spec: { holderIdentity?: string } } | undefined)?.spec
    .holderIdentity;
const ec2Calls = () => ({ ...world.ec2.counters().calls });
const delta = (before: Record<string, number>, action: string) => (world.ec2.counters().calls[action] ?? 0) - (before[action] ?? 0);
const vaWrites = () =>
  world.kube.requests().filter((r) => r.resource === 'volumeattachments' && !['get', 'list', 'watch'].includes(r.verb));
const fullPass = () => handlers.scheduled({ pass: 'full' }, lambdaContext());

/** kcm's reconciler round and the kubelets, as between any two passes. */
function cluster(): void {
  world.kcm!.step();
  kubelets.run();
}

/** The sidecar's loop for `ms` of sandbox time, one step per 5 s retry period, kcm and the kubelets in between. */
const sidecarRuns = (ms: number) => runSidecarFor(sidecar, clock, ms, cluster);

async function addPod(name: string, nodeName: string): Promise<void> {
  const volume = await world.createVolume({ name: `data-${name}` });
  volumes.set(name, volume);
  world.addPod(name, volume, nodeName);
}

let started: SidecarWorld;

beforeAll(async () => {
  started = await startSidecarWorld(3, SIDECAR_POD);
  ({ world, clock, handlers, kubelets, election, sidecar } = started);
  for (let i = 0; i < PODS; i++) await addPod(`app-${i}`, `node-${(i % 3) + 1}`);
  await sidecarRuns(30 * S);
});

afterAll(() => started.stop());

describe('takeover from the csi-attacher sidecar (50 volumes), normal operation, rollback', () => {
  it('the sidecar attached all 50: finalizers, devicePath, mounted', () => {
    expect(holder()).toBe(SIDECAR_POD);
    expect(vas()).toHaveLength(PODS);
    for (const va of vas()) {
      expect(va.status).toMatchObject({
        attached: true,
        attachmentMetadata: { devicePath: expect.stringMatching(/^\/dev\/xvd[a-z]{2}$/) as unknown },
      });
      expect(va.metadata.finalizers).toEqual(['external-attacher/ebs-csi-aws-com']);
    }
    expect(world.ec2.counters().calls.AttachVolume).toBe(PODS);
    const pvs = world.kube.list('PersistentVolume') as { metadata: { finalizers?: string[] } }[];
    expect(pvs.filter((pv) => pv.metadata.finalizers?.includes('external-attacher/ebs-csi-aws-com'))).toHaveLength(PODS);
    const inUse = (world.kube.list('Node') as { status?: { volumesInUse?: string[] } }[]).flatMap((n) => n.status?.volumesInUse ?? []);
    expect(inUse).toHaveLength(PODS);
  });

  it('adoption: our passes take the Lease and record all 50 as attached with no EC2 mutating call and no VolumeAttachment write', async () => {
    const before = ec2Calls();
    const versions = new Map(vas().map((va) => [va.metadata.name, va.metadata.resourceVersion]));
    world.kube.resetRequests();
    world.dynamo.resetMeter();

    // The EBS CSI controller is scaled to 0: nobody renews the sidecar's Lease (docs/eks.md, Step 2).
    expect((await fullPass()).fenced).toMatch(/^held by ebs-csi-controller-/);
    clock.advance(16 * S);
    const passes = [];
    for (let i = 0; i < 3; i++) {
      cluster();
      passes.push(await fullPass());
      clock.advance(61 * S); // each pass is a verification against EC2
    }

    expect(holder()).toBe(US);
    expect(passes.map((p) => p.fenced)).toEqual([undefined, undefined, undefined]);
    expect(passes.every((p) => p.converged && p.actions === 0)).toBe(true);
    expect([delta(before, 'AttachVolume'), delta(before, 'DetachVolume')]).toEqual([0, 0]);
    expect(vaWrites()).toEqual([]);
    expect(new Map(vas().map((va) => [va.metadata.name, va.metadata.resourceVersion]))).toEqual(versions);
    const records = (await world.controller.ports.store.scan()).records;
    const attached = [...records.values()].flatMap((r) => Object.values(r.attachments).filter((a) => a.state === 'attached'));
    expect(attached).toHaveLength(PODS);
    // What adoption costs: EC2 is asked in batches, once per pass (the fenced one too); the store
    // gets each volume's record from EC2's word and then its mount fact, and each pass its verification
    // time; every pass enters and leaves the handover record (2 writes), which also keeps the first
    // sight of the sidecar's record and that we took the Lease (2 writes).
    expect({ describeVolumes: delta(before, 'DescribeVolumes'), describeInstances: delta(before, 'DescribeInstances') }).toEqual({
      describeVolumes: 4,
      describeInstances: 4,
    });
    expect(world.dynamo.meter.itemsWritten).toBeLessThanOrEqual(2 * PODS + passes.length + 2 * (passes.length + 1) + 2);
  });

  it('normal operation: a new pod is attached by us, a deleted pod detached by us; the sidecar stands by', async () => {
    const before = ec2Calls();
    await addPod('new-0', 'node-1');
    world.kube.kubelet.deletePod('default', 'app-0');
    for (let i = 0; i < 4; i++) {
      cluster();
      await fullPass();
      expect((await sidecar.step()).leads).toBe(false);
      clock.advance(5 * S);
    }

    expect([delta(before, 'AttachVolume'), delta(before, 'DetachVolume')]).toEqual([1, 1]);
    expect(vaOf('new-0')?.status?.attached).toBe(true);
    expect(vaOf('app-0')).toBeUndefined();
    expect(holder()).toBe(US);

    // Its PV is deleted: the sidecar's PV finalizer (the same name as ours) is swept by our pass.
    const pvName = volumes.get('app-0')!.pvName;
    expect(world.kube.components.delete('PersistentVolume', undefined, pvName).gone).toBe(false);
    await fullPass();
    const pv = world.kube.get('PersistentVolume', undefined, pvName) as { metadata: { finalizers?: string[] } };
    expect(pv.metadata.finalizers).toEqual(['kubernetes.io/pv-protection']); // the pv-protection controller's, not ours
  });

  it('rollback: our passes stop and our Lease is deleted; the sidecar leads within 5 s and attaches and detaches the next pods, nothing else', async () => {
    const before = ec2Calls();
    await election.deleteLease();
    await sidecarRuns(5 * S);
    expect(holder()).toBe(SIDECAR_POD);

    await addPod('new-1', 'node-2');
    world.kube.kubelet.deletePod('default', 'app-1');
    await sidecarRuns(30 * S);

    expect([delta(before, 'AttachVolume'), delta(before, 'DetachVolume')]).toEqual([1, 1]);
    expect(vaOf('new-1')?.status?.attached).toBe(true);
    expect(vaOf('app-1')).toBeUndefined();
    // Everything else, ours and the sidecar's, stays attached: no detach storm.
    expect(vas().filter((va) => va.status?.attached === true)).toHaveLength(PODS);
  });

  it("a second takeover after the rollback: the first one's stale records are corrected from EC2, what the sidecar did meanwhile is adopted, nothing attached or detached", async () => {
    const before = ec2Calls();
    world.kube.resetRequests();

    // The sidecar is scaled to 0 again; our functions run again, their store still holding the
    // first takeover's records: app-1 as attached (the sidecar has detached it since), new-1 unknown.
    expect(holder()).toBe(SIDECAR_POD);
    expect((await fullPass()).fenced).toMatch(/^held by ebs-csi-controller-/);
    clock.advance(16 * S);
    for (let i = 0; i < 3; i++) {
      cluster();
      await fullPass();
      clock.advance(61 * S);
    }

    expect(holder()).toBe(US);
    expect([delta(before, 'AttachVolume'), delta(before, 'DetachVolume')]).toEqual([0, 0]);
    expect(vaWrites()).toEqual([]);
    const records = (await world.controller.ports.store.scan()).records;
    const attachedVolumes = [...records.values()].filter((r) => Object.values(r.attachments).some((a) => a.state === 'attached'));
    const attachedIds = new Set(attachedVolumes.map((r) => r.volumeId));
    expect(attachedIds.has(volumes.get('new-1')!.volumeId)).toBe(true);
    expect(attachedIds.has(volumes.get('app-1')!.volumeId)).toBe(false);
    expect(attachedIds.size).toBe(vas().filter((va) => va.status?.attached === true).length);

    // And it works as usual: the next pod is attached by us, not by the sidecar.
    await addPod('new-2', 'node-3');
    for (let i = 0; i < 3; i++) {
      cluster();
      await fullPass();
      clock.advance(5 * S);
    }
    expect(delta(before, 'AttachVolume')).toBe(1);
    expect(vaOf('new-2')?.status?.attached).toBe(true);
  });
});
