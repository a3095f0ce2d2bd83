/**
 * The adapter against the local API server (sandbox/kube) through the real client: HTTPS,
 * the sandbox's kubeconfig, small pages so every list spans several. Builders keep each
 * test's objects to a line.
 */
import { startKubeSandbox, type KubeSandbox, type KubeSandboxOptions } from '../../sandbox/kube/index.js';
import { createKubeClients, type KubeClientOptions, type KubeClients } from '../../lambda/adapters/kubernetes/clients.js';
import { KubernetesCluster, type KubernetesClusterOptions } from '../../lambda/adapters/kubernetes/kubernetes-cluster.js';
import { kubeConfigFromFile } from '../../lambda/adapters/kubernetes/kubeconfig.js';
import { UNIQUE_NAME_PREFIX } from '../../lambda/core/types.js';
import { systemClock, type Clock } from '../../lambda/clock.js';

/** Fast retries and no client-side throttling so tests stay quick (the limiter has its own test); Retry-After is honoured but capped. */
const FAST_POLICY = { qps: 1_000, burst: 1_000, backoffBaseMs: 5, backoffMaxMs: 20, maxRetryAfterMs: 20, timeoutMs: 5_000 };

export interface Harness {
  sandbox: KubeSandbox;
  clients: KubeClients;
  cluster: KubernetesCluster;
  /** A second adapter on the same server: another Lambda invocation or a concurrent pass. */
  another(options?: KubernetesClusterOptions): KubernetesCluster;
  stop(): Promise<void>;
}

export async function startHarness(
  options: {
    cluster?: KubernetesClusterOptions;
    clients?: Partial<KubeClientOptions>;
    clock?: Pick<Clock, 'now'>;
    sandbox?: KubeSandboxOptions;
  } = {},
): Promise<Harness> {
  const clock = options.clock ?? systemClock;
  const sandbox = await startKubeSandbox(options.sandbox);
  const opened: KubeClients[] = [];
  const open = () => {
    const clients = createKubeClients(kubeConfigFromFile(sandbox.kubeconfigPath), {
      clock: systemClock,
      ...options.clients,
      policy: { ...FAST_POLICY, ...options.clients?.policy },
    });
    opened.push(clients);
    return clients;
  };
  const clusterOptions = (extra?: KubernetesClusterOptions) => ({ paging: { pageSize: 2 }, ...options.cluster, ...extra });
  const clients = open();
  return {
    sandbox,
    clients,
    cluster: new KubernetesCluster(clients, clock, clusterOptions()),
    another: (extra) => new KubernetesCluster(open(), clock, clusterOptions(extra)),
    async stop() {
      await Promise.all(opened.map((c) => c.close()));
      await sandbox.stop();
    },
  };
}

export const uniqueName = (volumeId: string) => `${UNIQUE_NAME_PREFIX}${volumeId}`;

export function node(name: string, status: { volumesInUse?: string[]; volumesAttached?: { name: string; devicePath: string }[] } = {}) {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, annotations: { 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' } },
    spec: {
      providerID: `aws:///eu-west-1a/i-0${name
        .replace(/[^0-9a-f]/g, '')
        .padEnd(16, '0')
        .slice(0, 16)}`,
    },
    status: { conditions: [{ type: 'Ready', status: 'True' }], ...status },
  };
}

type PodVolume = { name: string; claim?: string; ephemeral?: boolean; ebs?: string };

export function pod(namespace: string, name: string, nodeName: string | undefined, volumes: PodVolume[] = []) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { namespace, name, uid: `uid-${namespace}-${name}` },
    spec: {
      ...(nodeName ? { nodeName } : {}),
      containers: [{ name: 'app', image: 'busybox' }],
      volumes: volumes.map((v) => ({
        name: v.name,
        ...(v.claim ? { persistentVolumeClaim: { claimName: v.claim } } : {}),
        ...(v.ephemeral
          ? {
              ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } },
            }
          : {}),
        ...(v.ebs ? { awsElasticBlockStore: { volumeID: v.ebs } } : {}),
      })),
    },
    status: { phase: 'Running' },
  };
}

export function pvc(namespace: string, name: string) {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { namespace, name },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    status: { phase: 'Pending' },
  };
}

export function pv(name: string, volumeId: string) {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name },
    spec: { accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' }, csi: { driver: 'ebs.csi.aws.com', volumeHandle: volumeId } },
    status: { phase: 'Available' },
  };
}

/** A claim bound to its volume, as the PV controller leaves them. */
export function seedBound(sandbox: KubeSandbox, namespace: string, claim: string, volume: string, volumeId: string): void {
  sandbox.seed([pvc(namespace, claim), pv(volume, volumeId)]);
  sandbox.bind(namespace, claim, volume);
}

export function volumeAttachment(name: string, nodeName: string, pvName: string, finalizers: string[] = []) {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'VolumeAttachment',
    metadata: { name, finalizers },
    spec: { attacher: 'ebs.csi.aws.com', nodeName, source: { persistentVolumeName: pvName } },
  };
}

/** An object as the sandbox stores it, typed for the fields tests read. */
export interface Stored {
  metadata: { name?: string; finalizers?: string[]; deletionTimestamp?: string };
  spec?: { source?: unknown; [field: string]: unknown };
  status?: { attached?: boolean; attachmentMetadata?: unknown; volumesAttached?: unknown; [field: string]: unknown };
  count?: number;
  [field: string]: unknown;
}

export function stored(sandbox: KubeSandbox, kind: string, namespace: string | undefined, name: string): Stored | undefined {
  return sandbox.get(kind, namespace, name) as Stored | undefined;
}

export function storedList(sandbox: KubeSandbox, kind: string, namespace?: string): Stored[] {
  return sandbox.list(kind, namespace) as Stored[];
}
