/**
 * In-memory stand-ins for the three ports, for executor unit tests of edge cases that the
 * sandboxes cannot easily stage. The store keeps the port's contract (CAS on version, fencing).
 */
import { DEFAULT_COVERAGE } from '../../lambda/core/coverage.js';
import { ATTACHER_FINALIZER, NODE_ID_ANNOTATION } from '../../lambda/core/attacher/names.js';
import type { VaStatusPatch } from '../../lambda/core/attacher/status.js';
import type { AttachedVolume, ClusterSnapshot, KubeCsiNode } from '../../lambda/core/kube.js';
import type { InstanceId, InstanceState, VolumeId, VolumeObservation, VolumeRecord } from '../../lambda/core/types.js';
import type {
  AttachOutcome,
  AttachRequest,
  BlockStorage,
  DetachOutcome,
  DetachRequest,
  WaitRequest,
  WaitResult,
  SeenInstance,
  PreflightOutcome,
  PreflightRequest,
} from '../../lambda/ports/block-storage.js';
import type {
  Cluster,
  ClusterEvent,
  SetVolumesAttachedOptions,
  VolumeAttachmentRef,
  VolumeAttachmentStatus,
} from '../../lambda/ports/cluster.js';
import type { ControllerState, DeviceHolder, VolumeStore, WriteResult } from '../../lambda/ports/volume-store.js';
import type { WatchedKind, WatchedObject, WatchOptions, WatchSignal } from '../../lambda/ports/cluster-watch.js';
import type { WatchCheckpoint, WatcherLease } from '../../lambda/core/watch.js';
import type { WatcherStore } from '../../lambda/ports/watcher-store.js';
import type { PodRef } from '../../lambda/core/types.js';
import type { ModeDeps } from '../../lambda/reconcile/operating-mode.js';
import type { ReconcileDeps } from '../../lambda/reconcile/pass/types.js';
import { config, T0 } from '../core/builders.js';
import { volumeAttachmentName } from '../../lambda/adapters/kubernetes/volume-attachment-name.js';

export class FakeStore implements VolumeStore {
  readonly items = new Map<VolumeId, VolumeRecord>();
  state: ControllerState = { version: 0 };
  /** Called before each put: lets a test change the item "underneath" the pass. */
  beforePut?: (next: VolumeRecord) => void;

  get(volumeId: VolumeId) {
    return Promise.resolve(structuredClone(this.items.get(volumeId)));
  }
  getMany(volumeIds: VolumeId[]) {
    const records = new Map(volumeIds.flatMap((id) => (this.items.has(id) ? [[id, structuredClone(this.items.get(id)!)] as const] : [])));
    return Promise.resolve({ records, corrupt: [] });
  }
  scan() {
    return Promise.resolve({ records: new Map([...this.items].map(([id, r]) => [id, structuredClone(r)])), corrupt: [] });
  }
  put(next: VolumeRecord, fence?: { lockKey: string; operationId: string }): Promise<WriteResult> {
    this.beforePut?.(next);
    const stored = this.items.get(next.volumeId);
    const fenced = fence === undefined || stored?.operations[fence.lockKey]?.id === fence.operationId;
    if ((stored?.version ?? 0) !== next.version || !fenced) return Promise.resolve({ ok: false, reason: 'conflict' });
    const record = { ...structuredClone(next), version: next.version + 1 };
    this.items.set(next.volumeId, record);
    return Promise.resolve({ ok: true, record: structuredClone(record) });
  }
  remove(record: VolumeRecord) {
    if (this.items.get(record.volumeId)?.version !== record.version)
      return Promise.resolve({ ok: false as const, reason: 'conflict' as const });
    this.items.delete(record.volumeId);
    return Promise.resolve({ ok: true as const });
  }
  getControllerState() {
    return Promise.resolve({ ...this.state });
  }
  putControllerState(next: ControllerState) {
    if (next.version !== this.state.version) return Promise.resolve({ ok: false });
    this.state = { ...next, version: next.version + 1 };
    return Promise.resolve({ ok: true });
  }
  /** instance → device → holder, as the table's instance items keep them. */
  readonly devices = new Map<InstanceId, Map<string, DeviceHolder>>();
  reservedDevices(instanceId: InstanceId, now: number) {
    return Promise.resolve(new Map([...(this.devices.get(instanceId) ?? [])].filter(([, holder]) => holder.expiresAt > now)));
  }
  reserveDevice(instanceId: InstanceId, device: string, holder: DeviceHolder, now: number, takeFrom = holder.operationId) {
    const held = this.devices.get(instanceId) ?? new Map<string, DeviceHolder>();
    const current = held.get(device);
    if (current !== undefined && current.expiresAt > now && current.operationId !== takeFrom) return Promise.resolve(false);
    held.set(device, { ...holder });
    this.devices.set(instanceId, held);
    return Promise.resolve(true);
  }
  releaseDevice(instanceId: InstanceId, device: string, operationId: string) {
    const held = this.devices.get(instanceId);
    if (held?.get(device)?.operationId === operationId) held.delete(device);
    return Promise.resolve();
  }
}

/** A watch the fake cluster opened: the test plays the API server through `send`. */
export interface FakeWatch {
  kind: WatchedKind;
  resourceVersion: string;
  options: WatchOptions;
  stopped: boolean;
  send(signal: WatchSignal): void;
}

export class FakeCluster implements Cluster {
  readonly events: { pod: PodRef; event: ClusterEvent }[] = [];
  readonly statusWrites: { node: string; volumes: AttachedVolume[] }[] = [];
  /** The `base` each status write said it was computed from, in order. */
  readonly statusBases: (AttachedVolume[] | undefined)[] = [];
  readonly volumeAttachments = new Map<string, VolumeAttachmentStatus>();
  /** Every VolumeAttachment write in order: `upsert <volume>|<node>` or `delete <volume>|<node>`. */
  readonly volumeAttachmentWrites: string[] = [];
  /** volumesInUse as a live GET answers it (defaults to the snapshot's). */
  liveInUse = new Map<string, string[]>();
  /** volumesAttached names as a live GET answers them (another pass may have listed a volume again). */
  liveAttached = new Map<string, string[]>();
  /** Nodes deleted since the snapshot was read: a live read finds them gone. */
  readonly deletedSinceRead = new Set<string>();
  failStatusWrites = false;

  constructor(public snapshot: ClusterSnapshot) {}

  /** The resourceVersion a list reports; every list is logged in `lists`, every watch opened in `watches`. */
  listRevision = '100';
  readonly lists: WatchedKind[] = [];
  readonly watches: FakeWatch[] = [];
  listToWatch(kind: WatchedKind) {
    this.lists.push(kind);
    const of: Record<WatchedKind, WatchedObject[]> = {
      pods: this.snapshot.pods,
      nodes: this.snapshot.nodes,
      volumeattachments: this.snapshot.volumeAttachments,
      persistentvolumes: this.snapshot.pvs,
      csinodes: this.csiNodes,
    };
    return Promise.resolve({ objects: structuredClone(of[kind]), resourceVersion: this.listRevision });
  }
  watch(kind: WatchedKind, resourceVersion: string, listener: (signal: WatchSignal) => void, options: WatchOptions) {
    const watch: FakeWatch = {
      kind,
      resourceVersion,
      options,
      stopped: false,
      send: (signal) => {
        if (!watch.stopped) listener(signal);
      },
    };
    this.watches.push(watch);
    return Promise.resolve({ stop: () => void (watch.stopped = true) });
  }

  readAll() {
    return Promise.resolve(structuredClone(this.snapshot));
  }
  readPod(namespace: string, name: string) {
    const pod = this.snapshot.pods.find((p) => p.metadata.namespace === namespace && p.metadata.name === name);
    return Promise.resolve({ ...(pod ? { pod } : {}), pvcs: this.snapshot.pvcs, pvs: this.snapshot.pvs });
  }
  readPodsOnNode(nodeName: string) {
    return Promise.resolve({
      pods: this.snapshot.pods.filter((p) => p.spec?.nodeName === nodeName),
      pvcs: this.snapshot.pvcs,
      pvs: this.snapshot.pvs,
    });
  }
  listNodes() {
    return Promise.resolve(structuredClone(this.snapshot.nodes));
  }
  readNode(name: string) {
    return Promise.resolve(this.snapshot.nodes.find((n) => n.metadata.name === name));
  }
  liveVolumes(nodeName: string) {
    const node = this.snapshot.nodes.find((n) => n.metadata.name === nodeName);
    if (this.deletedSinceRead.has(nodeName) || node === undefined) return Promise.resolve(undefined);
    const inUse = this.liveInUse.get(nodeName) ?? node.status?.volumesInUse ?? [];
    return Promise.resolve({ inUse, attached: this.liveAttached.get(nodeName) ?? [] });
  }
  setVolumesAttached(
    nodeName: string,
    volumes: AttachedVolume[],
    options: SetVolumesAttachedOptions = {},
  ): ReturnType<Cluster['setVolumesAttached']> {
    if (this.failStatusWrites) return Promise.reject(new Error('nodes/status is forbidden'));
    this.statusWrites.push({ node: nodeName, volumes });
    this.statusBases.push(options.base);
    return Promise.resolve('updated' as const);
  }
  upsertVolumeAttachment(ref: VolumeAttachmentRef, status: VolumeAttachmentStatus) {
    this.volumeAttachmentWrites.push(`upsert ${ref.volumeId}|${ref.nodeName}`);
    this.volumeAttachments.set(`${ref.volumeId}|${ref.nodeName}`, status);
    return Promise.resolve();
  }
  deleteVolumeAttachment(ref: VolumeAttachmentRef) {
    this.volumeAttachmentWrites.push(`delete ${ref.volumeId}|${ref.nodeName}`);
    this.volumeAttachments.delete(`${ref.volumeId}|${ref.nodeName}`);
    return Promise.resolve();
  }
  recordEvent(pod: PodRef, event: ClusterEvent) {
    this.events.push({ pod, event });
    return Promise.resolve();
  }

  // Attacher mode, over the same snapshot plus `csiNodes`; every write is logged in `attacherWrites`.
  csiNodes: KubeCsiNode[] = [];
  /** In order: `pv+ <pv>`, `pv- <pv>`, `claim <va> <instance>`, `release <va>`, `status <va> <json>`, `event <va> <reason>`. */
  readonly attacherWrites: string[] = [];
  private va(name: string) {
    return this.snapshot.volumeAttachments.find((va) => va.metadata.name === name);
  }
  readAttacherView() {
    const { volumeAttachments, pvs, nodes } = structuredClone(this.snapshot);
    return Promise.resolve({ volumeAttachments, pvs, nodes, csiNodes: structuredClone(this.csiNodes) });
  }
  listVolumeAttachments() {
    return Promise.resolve(structuredClone(this.snapshot.volumeAttachments));
  }
  readVolumeAttachment(name: string) {
    return Promise.resolve(structuredClone(this.va(name)));
  }
  readVolumeAttachmentFor(volumeHandle: string, nodeName: string) {
    return this.readVolumeAttachment(volumeAttachmentName(volumeHandle, nodeName));
  }
  readCsiNode(name: string) {
    return Promise.resolve(structuredClone(this.csiNodes.find((c) => c.metadata.name === name)));
  }
  readPv(name: string) {
    return Promise.resolve(structuredClone(this.snapshot.pvs.find((pv) => pv.metadata.name === name)));
  }
  addPvFinalizer(name: string) {
    const pv = this.snapshot.pvs.find((p) => p.metadata.name === name);
    if (pv === undefined) return Promise.resolve('gone' as const);
    if (pv.metadata.deletionTimestamp) return Promise.resolve('deleting' as const);
    if ((pv.metadata.finalizers ?? []).includes(ATTACHER_FINALIZER)) return Promise.resolve('present' as const);
    this.attacherWrites.push(`pv+ ${name}`);
    pv.metadata.finalizers = [...(pv.metadata.finalizers ?? []), ATTACHER_FINALIZER];
    return Promise.resolve('added' as const);
  }
  removePvFinalizer(name: string) {
    const pv = this.snapshot.pvs.find((p) => p.metadata.name === name);
    this.attacherWrites.push(`pv- ${name}`);
    if (pv) pv.metadata.finalizers = (pv.metadata.finalizers ?? []).filter((f) => f !== ATTACHER_FINALIZER);
    return Promise.resolve();
  }
  claimVolumeAttachment(name: string, instanceId: string): Promise<'gone' | 'deleting' | 'claimed'> {
    const va = this.va(name);
    if (va === undefined) return Promise.resolve('gone');
    if (va.metadata.deletionTimestamp) return Promise.resolve('deleting' as const);
    this.attacherWrites.push(`claim ${name} ${instanceId}`);
    va.metadata.finalizers = [...new Set([...(va.metadata.finalizers ?? []), ATTACHER_FINALIZER])];
    va.metadata.annotations = { ...va.metadata.annotations, [NODE_ID_ANNOTATION]: instanceId };
    return Promise.resolve('claimed' as const);
  }
  releaseVolumeAttachment(name: string) {
    const va = this.va(name);
    this.attacherWrites.push(`release ${name}`);
    if (va) va.metadata.finalizers = (va.metadata.finalizers ?? []).filter((f) => f !== ATTACHER_FINALIZER);
    return Promise.resolve();
  }
  patchVolumeAttachmentStatus(name: string, status: VaStatusPatch) {
    const va = this.va(name);
    this.attacherWrites.push(`status ${name} ${JSON.stringify(status)}`);
    if (va === undefined) return Promise.resolve('gone' as const);
    if (status.attached === true && va.metadata.deletionTimestamp) return Promise.resolve('deleting' as const);
    const merged = Object.entries({ ...va.status, ...status }).filter(([, v]) => v !== null);
    va.status = { attached: false, ...Object.fromEntries(merged) };
    return Promise.resolve('patched' as const);
  }
  recordVolumeAttachmentEvent(va: { name: string }, event: ClusterEvent) {
    this.attacherWrites.push(`event ${va.name} ${event.reason}`);
    return Promise.resolve();
  }
}

/**
 * EC2 whose answers the test scripts; unscripted calls succeed at once. Like EC2 it lets go of an
 * attachment once DetachVolume succeeds (or a wait sees it detached): `volumes` no longer shows it.
 */
export class FakeBlockStorage implements BlockStorage {
  readonly calls: string[] = [];
  attachOutcome: AttachOutcome = { kind: 'started', device: '/dev/xvdaa' };
  detachOutcome: DetachOutcome = { kind: 'started' };
  waitResult?: WaitResult;
  /** The last wait asked for, with the caller's `giveUp`. */
  lastWait?: WaitRequest;
  volumes = new Map<VolumeId, VolumeObservation>();
  /** Volumes whose reads lag behind a detach (eventual consistency): EC2 lets go, `volumes` still shows the attachment. */
  readonly readLag = new Set<VolumeId>();

  /** Device names an attach proposes, as the EC2 adapter would from a new instance's mappings. */
  candidates = ['/dev/xvdaa', '/dev/xvdab', '/dev/xvdac'];
  /** As the adapter does: the name claimed while the request's go-ahead is pending; `calls` lists what was sent. */
  async attach(request: AttachRequest): Promise<AttachOutcome> {
    const device = this.attachOutcome.kind === 'started' ? await request.devices.claim(this.candidates) : undefined;
    const why = await request.ready;
    if (why !== undefined) {
      if (device !== undefined) await request.devices.unused(device);
      return { kind: 'withheld', message: why };
    }
    this.calls.push(`attach ${request.volumeId}`);
    if (this.attachOutcome.kind !== 'started') return this.attachOutcome;
    if (device === undefined) return { kind: 'limit-reached' as const, message: 'no free device name' };
    return { ...this.attachOutcome, device };
  }
  /** Told of each detach asked for, before its go-ahead is in (tests of what runs beside what). */
  onDetachAsked?: (request: DetachRequest) => void;
  async detach(request: DetachRequest): Promise<DetachOutcome> {
    this.onDetachAsked?.(request);
    const why = await request.ready;
    if (why !== undefined) return { kind: 'withheld', message: why };
    this.calls.push(`detach ${request.volumeId}`);
    if (this.detachOutcome.kind === 'started' || this.detachOutcome.kind === 'already-detached') this.letGo(request);
    return this.detachOutcome;
  }
  /** EC2 no longer shows the volume on the instance. */
  private letGo({ volumeId, instanceId }: { volumeId: VolumeId; instanceId: InstanceId }): void {
    const seen = this.volumes.get(volumeId);
    if (seen !== undefined && !this.readLag.has(volumeId))
      this.volumes.set(volumeId, { ...seen, attachments: seen.attachments.filter((a) => a.instanceId !== instanceId) });
  }
  /** The ids of every DescribeVolumes, in order. */
  readonly describes: VolumeId[][] = [];
  describeVolumes(ids: VolumeId[]) {
    this.describes.push([...ids]);
    return Promise.resolve(new Map(ids.map((id) => [id, this.volumes.get(id) ?? { volumeId: id, exists: true, attachments: [] }])));
  }
  describeInstanceVolumes(instanceId: InstanceId) {
    return Promise.resolve([...this.volumes.values()].filter((v) => v.attachments.some((a) => a.instanceId === instanceId)));
  }
  describeInstances(ids: InstanceId[]) {
    return Promise.resolve(new Map<InstanceId, InstanceState | 'missing'>(ids.map((id) => [id, 'running'])));
  }
  /** Running instances with no mappings: the attach's device names are the fake's `candidates`. */
  observeInstances(ids: InstanceId[]) {
    return Promise.resolve(new Map<InstanceId, SeenInstance | 'missing'>(ids.map((id) => [id, { state: 'running', mappings: [] }])));
  }
  /** Volumes whose dry runs IAM refuses, with the reason EC2 would give. */
  denied = new Map<VolumeId, string>();
  preflight(request: PreflightRequest): Promise<PreflightOutcome> {
    const call = `${request.action === 'attach' ? 'AttachVolume' : 'DetachVolume'} ${request.volumeId}`;
    this.calls.push(`preflight ${call}`);
    const why = this.denied.get(request.volumeId);
    return Promise.resolve(
      why === undefined ? { kind: 'allowed', call } : { kind: 'denied', call, code: 'UnauthorizedOperation', message: why },
    );
  }
  waitFor(request: WaitRequest) {
    this.calls.push(`wait ${request.target}`);
    this.lastWait = request;
    const result = this.waitResult ?? { state: request.target, device: '/dev/xvdaa', reachedTarget: true };
    if (request.target === 'detached' && result.reachedTarget) this.letGo(request);
    return Promise.resolve(result);
  }
}

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/** A pass's dependencies over fakes at T0, with the settings every reconcile test shares. */
/** The watchers' lease and checkpoints in memory, with the port's compare-and-swap; every save is logged. */
export class FakeWatcherStore implements WatcherStore {
  lease: WatcherLease = { holders: {}, version: 0 };
  readonly checkpoints = new Map<WatchedKind, WatchCheckpoint>();
  readonly saves: string[] = [];
  readLease() {
    return Promise.resolve(structuredClone(this.lease));
  }
  writeLease(next: WatcherLease) {
    if (next.version !== this.lease.version) return Promise.resolve(false);
    this.lease = { ...structuredClone(next), version: next.version + 1 };
    return Promise.resolve(true);
  }
  readCheckpoints(kinds: readonly WatchedKind[]) {
    const found: Partial<Record<WatchedKind, WatchCheckpoint>> = {};
    for (const kind of kinds) {
      const checkpoint = this.checkpoints.get(kind);
      if (checkpoint !== undefined) found[kind] = { ...checkpoint };
    }
    return Promise.resolve(found);
  }
  saveCheckpoint(kind: WatchedKind, checkpoint: WatchCheckpoint) {
    this.saves.push(`${kind} ${checkpoint.resourceVersion}`);
    this.checkpoints.set(kind, { ...checkpoint });
    return Promise.resolve();
  }
  gaveUpAt: number | undefined;
  async readFacts(kinds: readonly WatchedKind[]) {
    const facts = { lease: await this.readLease(), checkpoints: await this.readCheckpoints(kinds) };
    return this.gaveUpAt === undefined ? facts : { ...facts, gaveUpAt: this.gaveUpAt };
  }
  markGaveUp(at: number) {
    this.gaveUpAt = Math.max(at, this.gaveUpAt ?? at);
    return Promise.resolve();
  }
}

export function fakeDeps(ports: Pick<ModeDeps, 'cluster' | 'store'> & Partial<ReconcileDeps>): ModeDeps {
  return {
    blockStorage: new FakeBlockStorage(),
    clock: () => T0,
    sleep: () => Promise.resolve(),
    newId: () => 'id-1',
    log: quiet,
    settings: {
      plan: config(),
      syncPeriodMs: 60_000,
      coverage: DEFAULT_COVERAGE,
      maxConcurrentOperations: 4,
      maxAttachWaitMs: 5_000,
      maxDetachWaitMs: 5_000,
      reserveMs: 1_000,
      attacherWaitMs: 2_000,
      outOfServiceFollowMs: 5_000,
    },
    ...ports,
  };
}
