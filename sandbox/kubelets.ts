/**
 * What each node's kubelet does with volumes. It mounts a volume for the pods that need it only
 * once the controller lists it in `node.status.volumesAttached` (and, for CSI, its VolumeAttachment
 * says attached), and only if EC2 really has it attached to that node's instance: a kubelet cannot
 * mount a disk the machine does not have. Unmounting takes time: a volume no pod needs any more
 * stays in `volumesInUse` until its unmount finishes (`unmountMs` after the kubelet noticed).
 * A node that is not Ready, or whose instance is not running, has no working kubelet: its status
 * stays as it was. `run()` is called whenever a test lets the kubelets act (between steps, or
 * mid-pass from an API request hook).
 */
import { volumeAttachmentName } from '../lambda/adapters/kubernetes/volume-attachment-name.js';
import type { KubeNode, KubePod, KubePv, KubePvc, KubeVolumeAttachment } from '../lambda/core/kube.js';
import { attachmentState } from './ec2/state/lifecycle.js';
import type { KubeSandbox } from './kube/index.js';
import { desiredPairs, type DesiredPair } from './oracle/desired.js';
import type { Ec2Side } from './oracle/truth.js';

export interface KubeletOptions {
  /** How long one unmount takes, asked once per unmount (seeded in the fault suite). */
  unmountMs?: () => number;
  /**
   * Pods' own lifecycle, as a kubelet drives it: a pod bound to the node stays Pending until every
   * volume it needs is mounted, then runs; a pod being deleted has its volumes unmounted, and only
   * then is it removed (the kubelet's final delete waits for podResourcesAreReclaimed). Off by
   * default: most scenes set phases and delete pods themselves.
   */
  podLifecycle?: boolean;
}

const DEFAULT_UNMOUNT_MS = 2_000;

export class Kubelets {
  /** When each pending unmount finishes, by `node|uniqueName`. */
  private readonly unmounts = new Map<string, number>();
  private readonly unmountMs: () => number;
  private readonly podLifecycle: boolean;

  constructor(
    private readonly kube: Pick<KubeSandbox, 'list' | 'kubelet'>,
    private readonly ec2: Ec2Side,
    options: KubeletOptions = {},
  ) {
    this.unmountMs = options.unmountMs ?? (() => DEFAULT_UNMOUNT_MS);
    this.podLifecycle = options.podLifecycle === true;
  }

  /** Every kubelet acts once; returns how many nodes changed their volumesInUse. */
  run(): number {
    const now = this.ec2.settle();
    const nodes = this.kube.list('Node') as KubeNode[];
    const needed = Map.groupBy(
      desiredPairs(
        nodes,
        this.kube.list('Pod') as KubePod[],
        this.kube.list('PersistentVolumeClaim') as KubePvc[],
        this.kube.list('PersistentVolume') as KubePv[],
      ),
      (p) => p.nodeName,
    );
    const attachedVas = new Set(
      (this.kube.list('VolumeAttachment') as KubeVolumeAttachment[])
        .filter((va) => va.status?.attached === true)
        .map((va) => va.metadata.name),
    );
    let changed = 0;
    const pods = this.podLifecycle ? (this.kube.list('Pod') as KubePod[]) : [];
    for (const node of nodes) {
      if (!this.working(node)) continue;
      const name = node.metadata.name ?? '';
      const current = [...(node.status?.volumesInUse ?? [])].sort();
      const next = this.volumesInUse(node, needed.get(name) ?? [], attachedVas, now);
      if (next.join() !== current.join()) {
        this.kube.kubelet.setVolumesInUse(name, next);
        changed += 1;
      }
      if (this.podLifecycle)
        this.livePods(
          pods.filter((p) => p.spec?.nodeName === name),
          new Set(next),
          needed.get(name) ?? [],
        );
    }
    return changed;
  }

  /** Starts the pods whose volumes are all mounted; removes the deleted ones whose volumes are unmounted. */
  private livePods(pods: KubePod[], mounted: Set<string>, needed: DesiredPair[]): void {
    const claims = this.kube.list('PersistentVolumeClaim') as KubePvc[];
    const pvs = this.kube.list('PersistentVolume') as KubePv[];
    const stillNeeded = new Set(needed.map((p) => p.uniqueName));
    for (const pod of pods) {
      const { namespace = 'default', name = '' } = pod.metadata;
      const volumes = desiredPairs(
        this.kube.list('Node') as KubeNode[],
        [{ ...pod, metadata: { ...pod.metadata, deletionTimestamp: null } }],
        claims,
        pvs,
      );
      if (pod.metadata.deletionTimestamp) {
        if (volumes.every((v) => !mounted.has(v.uniqueName) || stillNeeded.has(v.uniqueName))) this.kube.kubelet.deletePod(namespace, name);
      } else if (pod.status?.phase === 'Pending' && volumes.every((v) => mounted.has(v.uniqueName))) {
        this.kube.kubelet.setPodPhase(namespace, name, 'Running');
      }
    }
  }

  /** Pending unmounts, soonest first (a test moves its clock to let them finish). */
  pendingUnmounts(): number[] {
    return [...this.unmounts.values()].sort((a, b) => a - b);
  }

  private working(node: KubeNode): boolean {
    const ready = (node.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
    return ready && this.ec2.world.instances.get(instanceOf(node) ?? '')?.state === 'running';
  }

  private volumesInUse(node: KubeNode, needed: DesiredPair[], attachedVas: Set<string | undefined>, now: number): string[] {
    const name = node.metadata.name ?? '';
    const reported = new Set((node.status?.volumesAttached ?? []).map((v) => v.name));
    const inUse = new Set(node.status?.volumesInUse ?? []);
    const wanted = new Set(needed.map((p) => p.uniqueName));
    const next = new Set<string>();
    for (const pair of needed) {
      this.unmounts.delete(`${name}|${pair.uniqueName}`);
      const mountable =
        reported.has(pair.uniqueName) &&
        attachedVas.has(volumeAttachmentName(pair.volumeId, name)) &&
        this.attachedInEc2(pair.volumeId, instanceOf(node), now);
      if (inUse.has(pair.uniqueName) || mountable) next.add(pair.uniqueName);
    }
    for (const uniqueName of inUse) {
      if (wanted.has(uniqueName)) continue;
      const key = `${name}|${uniqueName}`;
      const doneAt = this.unmounts.get(key) ?? now + this.unmountMs();
      if (now >= doneAt) {
        this.unmounts.delete(key);
        continue;
      }
      this.unmounts.set(key, doneAt);
      next.add(uniqueName);
    }
    return [...next].sort();
  }

  private attachedInEc2(volumeId: string, instanceId: string | undefined, now: number): boolean {
    const attachment = instanceId === undefined ? undefined : this.ec2.world.volumes.get(volumeId)?.attachments.get(instanceId);
    return attachment !== undefined && attachmentState(attachment, now, this.ec2.world.config.delays) === 'attached';
  }
}

function instanceOf(node: KubeNode): string | undefined {
  return /\/(i-[0-9a-f]+)$/.exec(node.spec?.providerID ?? '')?.[1];
}
