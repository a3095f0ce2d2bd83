/**
 * A small world for end-to-end tests and the CLI's tests: the local stack with a cluster made the
 * way a real one is — EC2 instances through RunInstances, EBS volumes through CreateVolume, and
 * the matching Node, PV, PVC and Pod objects.
 */
import { uniqueNameFor } from '../lambda/core/volume-id.js';
import type { SandboxClock } from './clock.js';
import type { Delays } from './ec2/state/model.js';
import { csiNodeObject, nodeObject, podObject, pvcObject, pvObject } from './generate/kube-objects.js';
import type { GenNode } from './generate/model.js';
import { startLocalStack, type LocalStack, type LocalStackOptions } from './local-stack.js';
import { createGenVolume, genPod, runNode } from './small-cluster.js';

export interface WorldOptions {
  nodes?: number;
  zone?: string;
  /** EC2 attach/detach delays; short by default so tests stay fast. */
  ec2Delays?: Partial<Delays>;
  clock?: SandboxClock;
  mode?: LocalStackOptions['mode'];
  /** Controller settings and seams (the stack's). */
  env?: LocalStackOptions['env'];
  controller?: LocalStackOptions['controller'];
  simulateKcm?: boolean;
  /** A csi-attacher sidecar runs beside the controller (LocalStackOptions.sidecar). */
  sidecar?: boolean;
  /** The role policy's tag schemes and KMS keys, as the stack's settings give them (LocalStackOptions.iam). */
  iam?: LocalStackOptions['iam'];
}

export interface WorldVolume {
  volumeId: string;
  uniqueName: string;
  pvName: string;
  claimName: string;
  namespace: string;
}

export interface World extends LocalStack {
  nodes: GenNode[];
  /** CreateVolume plus a bound PV and PVC (ReadWriteOnce unless `multiAttach`). */
  createVolume(options?: {
    name?: string;
    namespace?: string;
    zone?: string;
    multiAttach?: boolean;
    /** Encrypted with this customer-managed KMS key. */
    kmsKeyId?: string;
    /** Encrypted without naming a key: under the account's aws/ebs key, as EBS encryption by default does. */
    encrypted?: boolean;
    /** Without the cluster's tags (as a volume made outside the EBS CSI driver, or with k8sTagClusterId unset). */
    untagged?: boolean;
  }): Promise<WorldVolume>;
  /**
   * A pod on `nodeName` that mounts the volume's claim (unscheduled when nodeName is undefined): Running, or, as
   * kube-scheduler leaves a pod it just bound, `Pending` (its kubelet starts it once the volume is mounted).
   */
  addPod(name: string, volume: WorldVolume, nodeName: string | undefined, phase?: 'Running' | 'Pending'): void;
}

/** EC2 polling and waits short enough for the sandbox's short delays. */
export const FAST_CONTROLLER: NonNullable<LocalStackOptions['controller']> = {
  ec2Wait: { initialDelayMs: 25, factor: 1.5 },
  waits: { maxAttachWaitMs: 5_000, maxDetachWaitMs: 5_000, reserveMs: 500 },
};

const WORLD_CLUSTER = 'world';

export async function startWorld(options: WorldOptions = {}): Promise<World> {
  const zone = options.zone ?? 'us-east-1a';
  const stack = await startLocalStack({
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    clusterName: WORLD_CLUSTER,
    ec2: {
      delays: { attachMs: 100, detachMs: 100, instanceStartMs: 0, instanceStopMs: 200, instanceTerminateMs: 200, ...options.ec2Delays },
      throttle: false,
      model: { defaultZone: zone },
    },
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.mode === undefined ? {} : { mode: options.mode }),
    controller: { ...FAST_CONTROLLER, ...options.controller },
    ...(options.simulateKcm ? { simulateKcm: true } : {}),
    ...(options.sidecar ? { sidecar: true } : {}),
    ...(options.iam === undefined ? {} : { iam: options.iam }),
  });
  const client = stack.ec2Client;
  const nodes: GenNode[] = [];
  for (let i = 0; i < (options.nodes ?? 2); i++) nodes.push(await runNode(client, `node-${i + 1}`, zone, WORLD_CLUSTER));
  // The kubelet registers the EBS node plugin in a CSINode next to each Node.
  stack.kube.seed([...nodes.map((node) => nodeObject(node)), ...nodes.map(csiNodeObject)]);
  return {
    ...stack,
    nodes,
    createVolume: async (volumeOptions = {}) => {
      const { untagged, ...rest } = volumeOptions;
      const volume = await createGenVolume(client, { zone, ...(untagged ? {} : { cluster: WORLD_CLUSTER }), ...rest });
      stack.kube.seed([pvObject(volume), pvcObject(volume)]);
      return {
        volumeId: volume.volumeId,
        uniqueName: uniqueNameFor(volume.volumeId),
        pvName: volume.pvName,
        claimName: volume.claim.name,
        namespace: volume.claim.namespace,
      };
    },
    addPod: (name, volume, nodeName, phase) =>
      stack.kube.seed([podObject(genPod(name, volume.namespace, [volume.claimName], nodeName, phase))]),
  };
}
