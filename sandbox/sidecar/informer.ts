/**
 * The csi-attacher as it really runs, for the bench's side-by-side figures: an informer (client-node's
 * list+watch over the API server, the same transport the watcher uses) feeds a workqueue of
 * VolumeAttachment names, and workers run
 * csi_handler.go's syncAttach / syncDetach with the EBS CSI driver behind them (the chart's flags: 100
 * workers, client QPS 20 and burst 100, over one pooled connection):
 * - attach: nothing if `attached`; else our finalizer on the PV (a patch, if missing), the VA's
 *   finalizer and node-id annotation (one patch, if missing), ControllerPublishVolume (the driver:
 *   DescribeInstances for the instance's devices, AttachVolume, then DescribeVolumes polled at
 *   1 s, ×1.8 until attached: cloud.go's attachmentBackoff), then `attached: true` with the devicePath;
 * - detach (being deleted, finalizer present): ControllerUnpublishVolume (DescribeInstances,
 *   DetachVolume, the same polling until detached), then the finalizer off and the status cleared.
 * The PV and CSINode informers' caches are read in process (free, as a cache read is). Writes go
 * over HTTP through client-node, so they pay the API server's added latency as ours do. A failed
 * sync is retried with external-attacher's backoff (1 s, doubling, at most 5 min). With `batching`
 * (the driver's Helm chart default), DescribeInstances waits up to 500 ms to gather a batch.
 * Not modelled: leader election (it always leads here), CSI migration, attach/detach errors on the
 * object, the informer resync and ReconcileVA (the EBS driver has no LIST_VOLUMES capability).
 */
import { KubeConfig, makeInformer, PatchStrategy, setHeaderOptions, type V1VolumeAttachment } from '@kubernetes/client-node';
import { createKubeClients } from '../../lambda/adapters/kubernetes/clients.js';
import { systemClock } from '../../lambda/clock.js';
import type { EC2Client } from '@aws-sdk/client-ec2';
import type { KubeSandbox } from '../kube/index.js';
import { EbsDriver } from './ebs-driver.js';
import { DRIVER, FINALIZER, instanceOf, NODE_ID_ANNOTATION, volumeOf, type CsiNode, type Pv, type Va } from './objects.js';

export interface InformerSidecarOptions {
  kube: Pick<KubeSandbox, 'get' | 'list' | 'kubeconfigPath'>;
  ec2: EC2Client;
  clock: { sleep(ms: number): Promise<void> };
  /** The driver's `--batching`: DescribeInstances gathers requests for up to 500 ms. */
  batching?: boolean;
  workers?: number;
}

const jsonPatch = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const RETRY = { startMs: 1_000, maxMs: 300_000 };
/** The EBS CSI Helm chart's `--worker-threads` for the csi-attacher (external-attacher's own default is 10). */
const WORKER_THREADS = 100;

export function startInformerSidecar(options: InformerSidecarOptions) {
  const kc = new KubeConfig();
  kc.loadFromFile(options.kube.kubeconfigPath);
  // One pooled connection, as client-go keeps one, and the EBS CSI chart's client limits for the sidecar.
  const clients = createKubeClients(kc, { clock: systemClock, policy: { qps: 20, burst: 100 } });
  const { storage, core } = clients;
  const driver = new EbsDriver(options.ec2, { batching: options.batching === true, sleep: (ms) => options.clock.sleep(ms) });
  const informer = makeInformer<V1VolumeAttachment>(kc, '/apis/storage.k8s.io/v1/volumeattachments', () => storage.listVolumeAttachment());
  const queue = new WorkQueue((name) => sync(name), options.workers ?? WORKER_THREADS, options.clock);
  const cached = <T>(kind: string, name: string) => options.kube.get(kind, undefined, name) as T | undefined;

  async function sync(name: string): Promise<void> {
    const va = informer.get(name) as unknown as Va | undefined;
    if (va === undefined || va.spec.attacher !== DRIVER) return;
    if (va.metadata.deletionTimestamp) return syncDetach(va);
    return syncAttach(va);
  }

  async function syncAttach(va: Va): Promise<void> {
    if (va.status?.attached === true) return;
    const pvName = va.spec.source.persistentVolumeName;
    const pv = pvName === undefined ? undefined : cached<Pv>('PersistentVolume', pvName);
    const volumeId = volumeOf(va, new Map(pv ? [[pv.metadata.name, pv]] : []));
    const csiNode = cached<CsiNode>('CSINode', va.spec.nodeName);
    const instanceId = instanceOf(va, new Map(csiNode ? [[csiNode.metadata.name, csiNode]] : []));
    if (volumeId === undefined || instanceId === undefined) throw new Error(`${va.metadata.name}: no volume or node ID yet`);
    if (pv && !(pv.metadata.finalizers ?? []).includes(FINALIZER))
      await core.patchPersistentVolume({ name: pv.metadata.name, body: addFinalizer(pv.metadata.finalizers) }, jsonPatch);
    const marked = (va.metadata.finalizers ?? []).includes(FINALIZER) && va.metadata.annotations?.[NODE_ID_ANNOTATION] === instanceId;
    if (!marked) await storage.patchVolumeAttachment({ name: va.metadata.name, body: claim(va, instanceId) }, mergePatch);
    const device = await driver.publish(volumeId, instanceId);
    const status = { status: { attached: true, attachmentMetadata: { devicePath: device } } };
    await storage.patchVolumeAttachmentStatus({ name: va.metadata.name, body: status }, mergePatch);
  }

  async function syncDetach(va: Va): Promise<void> {
    if (!(va.metadata.finalizers ?? []).includes(FINALIZER)) return;
    const pvName = va.spec.source.persistentVolumeName;
    const pv = pvName === undefined ? undefined : cached<Pv>('PersistentVolume', pvName);
    const volumeId = volumeOf(va, new Map(pv ? [[pv.metadata.name, pv]] : []));
    const instanceId = instanceOf(va, new Map());
    if (volumeId === undefined || instanceId === undefined) throw new Error(`${va.metadata.name}: no volume or node ID`);
    await driver.unpublish(volumeId, instanceId);
    const index = (va.metadata.finalizers ?? []).indexOf(FINALIZER);
    await storage.patchVolumeAttachment(
      {
        name: va.metadata.name,
        body: [
          { op: 'test', path: `/metadata/finalizers/${index}`, value: FINALIZER },
          { op: 'remove', path: `/metadata/finalizers/${index}` },
        ],
      },
      jsonPatch,
    );
  }

  const enqueue = (va: V1VolumeAttachment) => queue.add(va.metadata?.name ?? '');
  informer.on('add', enqueue);
  informer.on('update', enqueue);
  informer.on('error', () => void setTimeout(() => void informer.start(), 1_000));
  return {
    start: () => informer.start(),
    async stop(): Promise<void> {
      await informer.stop();
      queue.stop();
      await clients.close();
    },
  };
}

function addFinalizer(existing: string[] | undefined) {
  return existing === undefined || existing.length === 0
    ? [{ op: 'add', path: '/metadata/finalizers', value: [FINALIZER] }]
    : [
        { op: 'test', path: '/metadata/finalizers', value: existing },
        { op: 'add', path: '/metadata/finalizers/-', value: FINALIZER },
      ];
}

function claim(va: Va, instanceId: string) {
  const finalizers = [...(va.metadata.finalizers ?? []).filter((f) => f !== FINALIZER), FINALIZER];
  return { metadata: { finalizers, annotations: { [NODE_ID_ANNOTATION]: instanceId } } };
}

/** client-go's workqueue as external-attacher uses it: a name once however often added, never synced twice at once, rate-limited retries. */
class WorkQueue {
  private readonly queued: string[] = [];
  private readonly waiting = new Set<string>();
  private readonly running = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, number>();
  private active = 0;
  private stopped = false;

  constructor(
    private readonly sync: (name: string) => Promise<void>,
    private readonly workers: number,
    private readonly clock: { sleep(ms: number): Promise<void> },
  ) {}

  add(name: string): void {
    if (this.stopped || name === '') return;
    if (this.running.has(name)) return void this.dirty.add(name);
    if (this.waiting.has(name)) return;
    this.waiting.add(name);
    this.queued.push(name);
    this.pump();
  }

  stop(): void {
    this.stopped = true;
  }

  private pump(): void {
    while (!this.stopped && this.active < this.workers && this.queued.length > 0) {
      const name = this.queued.shift() as string;
      this.waiting.delete(name);
      this.running.add(name);
      this.active += 1;
      void this.run(name);
    }
  }

  private async run(name: string): Promise<void> {
    try {
      await this.sync(name);
      this.failures.delete(name);
    } catch {
      const failures = (this.failures.get(name) ?? 0) + 1;
      this.failures.set(name, failures);
      void this.clock.sleep(Math.min(RETRY.maxMs, RETRY.startMs * 2 ** (failures - 1))).then(() => this.add(name));
    } finally {
      this.running.delete(name);
      this.active -= 1;
      if (this.dirty.delete(name)) this.add(name);
      this.pump();
    }
  }
}
