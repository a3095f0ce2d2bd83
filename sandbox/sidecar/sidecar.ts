/**
 * A simulated EBS CSI `csi-attacher` sidecar (kubernetes-csi/external-attacher with the EBS CSI
 * driver behind it), the implementation attacher mode takes over from and hands back to. Each
 * `step()` is one retry period of its leader election (sandbox/lease-election.ts) and, while it
 * leads, one round over the VolumeAttachments of `ebs.csi.aws.com`:
 * - attach (the object does not say `attached: true`): our finalizer on the PV, then the VA's
 *   finalizer and node-id annotation, then AttachVolume; once EC2 shows it attached, status
 *   `attached: true` with `attachmentMetadata.devicePath`;
 * - detach (deletionTimestamp, finalizer present): DetachVolume; once EC2 shows nothing on the
 *   instance, the finalizer off with the status cleared;
 * - PV finalizers: removed from PVs being deleted that no VolumeAttachment names.
 * Its writes go through `kube.components`, like the simulated kcm's: the request log stays the
 * controller's own. Left out: workqueues, informer resync and per-object exponential backoff (a
 * failed call is simply tried again next step), `attachError`/`detachError` and events, CSI
 * migration of in-tree PVs, the driver's own checks (multi-attach, zone, attachment limits:
 * EC2's answer is the only check), timeouts and forced detach.
 */
import type { EC2Client } from '@aws-sdk/client-ec2';
import type { KubeSandbox } from '../kube/index.js';
import { EbsDriver, type Placement } from './ebs-driver.js';
import { DRIVER, FINALIZER, instanceOf, NODE_ID_ANNOTATION, volumeOf, without, type CsiNode, type Pv, type Va } from './objects.js';

export interface SidecarStep {
  leads: boolean;
  /** VolumeAttachments marked attached / let go this step. */
  attached: string[];
  detached: string[];
}

interface Work {
  va: Va;
  volumeId: string;
  instanceId: string;
}

type Kube = Pick<KubeSandbox, 'list' | 'get' | 'components'>;

function byName<T extends { metadata: { name: string } }>(objects: readonly T[]): Map<string, T> {
  return new Map(objects.map((o) => [o.metadata.name, o]));
}

function pending(kube: Kube): Work[] {
  const pvs = byName(kube.list('PersistentVolume') as Pv[]);
  const csiNodes = byName(kube.list('CSINode') as CsiNode[]);
  return (kube.list('VolumeAttachment') as Va[]).flatMap((va) => {
    if (va.spec.attacher !== DRIVER) return [];
    const deleting = Boolean(va.metadata.deletionTimestamp);
    if (deleting ? !(va.metadata.finalizers ?? []).includes(FINALIZER) : va.status?.attached === true) return [];
    const volumeId = volumeOf(va, pvs);
    const instanceId = instanceOf(va, csiNodes);
    return volumeId === undefined || instanceId === undefined ? [] : [{ va, volumeId, instanceId }];
  });
}

export function createSidecar(parts: { kube: Kube; ec2: EC2Client; elector: { tick(): Promise<boolean> } }) {
  const { kube } = parts;
  const driver = new EbsDriver(parts.ec2);
  const update = (kind: string, name: string, change: (o: never) => object, subresource?: 'status') =>
    kube.components.update(kind, undefined, name, change as (o: unknown) => object, subresource);

  /** Each write only when missing, as upstream checks before patching. */
  function claim(work: Work): void {
    const pvName = work.va.spec.source.persistentVolumeName;
    const pv = pvName === undefined ? undefined : (kube.get('PersistentVolume', undefined, pvName) as Pv | undefined);
    if (pvName !== undefined && !(pv?.metadata.finalizers ?? []).includes(FINALIZER))
      update('PersistentVolume', pvName, (pv: Pv) => ({
        ...pv,
        metadata: { ...pv.metadata, finalizers: [...without(pv.metadata.finalizers, FINALIZER), FINALIZER] },
      }));
    const marked =
      work.va.metadata.finalizers?.includes(FINALIZER) && work.va.metadata.annotations?.[NODE_ID_ANNOTATION] === work.instanceId;
    if (marked) return;
    update('VolumeAttachment', work.va.metadata.name, (va: Va) => ({
      ...va,
      metadata: {
        ...va.metadata,
        finalizers: [...without(va.metadata.finalizers, FINALIZER), FINALIZER],
        annotations: { ...va.metadata.annotations, [NODE_ID_ANNOTATION]: work.instanceId },
      },
    }));
  }

  async function attach(work: Work, placement: Placement, inUse: Map<string, Set<string>>, step: SidecarStep): Promise<void> {
    claim(work);
    const current = placement.get(work.volumeId)?.get(work.instanceId);
    if (current?.state === 'attached') {
      const status = { attached: true, attachmentMetadata: { devicePath: current.device } };
      update('VolumeAttachment', work.va.metadata.name, (va: Va) => ({ ...va, status }), 'status');
      step.attached.push(work.va.metadata.name);
    } else if (current === undefined) {
      await driver.attach(work.volumeId, work.instanceId, inUse.get(work.instanceId) ?? new Set()).catch(() => undefined);
    }
  }

  async function detach(work: Work, placement: Placement, step: SidecarStep): Promise<void> {
    const current = placement.get(work.volumeId)?.get(work.instanceId);
    if (current?.state === 'attached') await driver.detach(work.volumeId, work.instanceId).catch(() => undefined);
    if (current !== undefined) return;
    update('VolumeAttachment', work.va.metadata.name, (va: Va) => ({
      ...va,
      metadata: { ...va.metadata, finalizers: without(va.metadata.finalizers, FINALIZER) },
      status: { ...va.status, attached: false, attachmentMetadata: null },
    }));
    step.detached.push(work.va.metadata.name);
  }

  function sweepPvFinalizers(): void {
    const named = new Set((kube.list('VolumeAttachment') as Va[]).flatMap((va) => va.spec.source.persistentVolumeName ?? []));
    for (const pv of kube.list('PersistentVolume') as Pv[]) {
      if (!pv.metadata.deletionTimestamp || named.has(pv.metadata.name) || !(pv.metadata.finalizers ?? []).includes(FINALIZER)) continue;
      update('PersistentVolume', pv.metadata.name, (o: Pv) => ({
        ...o,
        metadata: { ...o.metadata, finalizers: without(o.metadata.finalizers, FINALIZER) },
      }));
    }
  }

  return {
    async step(): Promise<SidecarStep> {
      const step: SidecarStep = { leads: await parts.elector.tick(), attached: [], detached: [] };
      if (!step.leads) return step;
      const work = pending(kube);
      const placement = await driver.placement([...new Set(work.map((w) => w.volumeId))]);
      const attaching = work.filter((w) => !w.va.metadata.deletionTimestamp);
      const needDevice = attaching.filter((w) => !placement.get(w.volumeId)?.has(w.instanceId)).map((w) => w.instanceId);
      const inUse = await driver.devicesInUse([...new Set(needDevice)]);
      for (const w of work) await (w.va.metadata.deletionTimestamp ? detach(w, placement, step) : attach(w, placement, inUse, step));
      sweepPvFinalizers();
      return step;
    },
  };
}

export type Sidecar = ReturnType<typeof createSidecar>;

/** One step per 5 s: the retry period of the sidecar's leader election (sandbox/lease-election.ts). */
const STEP_MS = 5_000;

/** The sidecar's loop for `ms` of story time, one step per retry period, `between` (kcm, kubelets) before each. */
export async function runSidecarFor(
  sidecar: Sidecar,
  clock: { advance(ms: number): void },
  ms: number,
  between: () => void,
): Promise<void> {
  for (let t = 0; t < ms; t += STEP_MS) {
    between();
    await sidecar.step();
    clock.advance(STEP_MS);
  }
}
