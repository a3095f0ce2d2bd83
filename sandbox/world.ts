/**
 * A small world for end-to-end tests, the demo and benchmarks: dynalite with the volume table,
 * the local EC2 and the local Kubernetes API, with a cluster made the way a real one is — EC2
 * instances through RunInstances, EBS volumes through CreateVolume, and the matching Node, PV,
 * PVC and Pod objects. `env()` is what the composition root needs to run against it.
 */
import { randomUUID } from 'node:crypto';
import { CreateVolumeCommand, EC2Client, RunInstancesCommand } from '@aws-sdk/client-ec2';
import { uniqueNameFor } from '../lambda/core/volume-id.js';
import { createVolumeTable, LOCAL_REGION, startLocalDynamo, type LocalDynamo } from './dynamodb.js';
import type { Clock } from './ec2/clock.js';
import { startLocalEc2, type LocalEc2 } from './ec2/server.js';
import type { Delays } from './ec2/state/model.js';
import { nodeObject, podObject, pvcObject, pvObject } from './generate/kube-objects.js';
import type { GenNode, GenPod, GenVolume } from './generate/model.js';
import { startKubeSandbox, type KubeSandbox } from './kube/index.js';

const CREDENTIALS = { accessKeyId: 'AKIDLOCAL', secretAccessKey: 'local-secret' };

export interface WorldOptions {
  nodes?: number;
  zone?: string;
  tableName?: string;
  /** EC2 attach/detach delays; short by default so tests stay fast. */
  ec2Delays?: Partial<Delays>;
  /** The local EC2's time (system time by default): share it with the controller to jump ahead. */
  ec2Clock?: Clock;
}

export interface WorldVolume {
  volumeId: string;
  uniqueName: string;
  pvName: string;
  claimName: string;
  namespace: string;
}

export interface World {
  dynamo: LocalDynamo;
  ec2: LocalEc2;
  kube: KubeSandbox;
  /** A client of the local EC2 for setup and assertions. */
  ec2Client: EC2Client;
  tableName: string;
  region: string;
  nodes: GenNode[];
  /** Environment for `loadConfig(…, 'local')` and the SDK's endpoint variables. */
  env(extra?: Record<string, string>): Record<string, string>;
  /** CreateVolume plus a bound PV and PVC (ReadWriteOnce unless `multiAttach`). */
  createVolume(options?: { name?: string; namespace?: string; zone?: string; multiAttach?: boolean }): Promise<WorldVolume>;
  /** A running pod on `nodeName` that mounts the volume's claim (unscheduled when nodeName is undefined). */
  addPod(name: string, volume: WorldVolume, nodeName: string | undefined): void;
  stop(): Promise<void>;
}

export async function startWorld(options: WorldOptions = {}): Promise<World> {
  const zone = options.zone ?? `${LOCAL_REGION}a`;
  const tableName = options.tableName ?? 'ebs-attach-detach';
  const [dynamo, ec2, kube] = await Promise.all([
    startLocalDynamo(),
    startLocalEc2({
      delays: { attachMs: 100, detachMs: 100, instanceStartMs: 0, instanceStopMs: 200, instanceTerminateMs: 200, ...options.ec2Delays },
      throttle: false, model: { defaultZone: zone }, ...(options.ec2Clock === undefined ? {} : { clock: options.ec2Clock }),
    }),
    startKubeSandbox(),
  ]);
  await createVolumeTable(dynamo.client, tableName);
  const client = new EC2Client({ region: LOCAL_REGION, endpoint: ec2.endpoint, credentials: CREDENTIALS });
  const nodes: GenNode[] = [];
  for (let i = 0; i < (options.nodes ?? 2); i++) nodes.push(await runNode(client, `node-${i + 1}`, zone));
  kube.seed(nodes.map((node) => nodeObject(node)));

  const world: World = {
    dynamo, ec2, kube, ec2Client: client, tableName, region: LOCAL_REGION, nodes,
    env: (extra = {}) => ({
      TABLE_NAME: tableName, AWS_REGION: LOCAL_REGION, CLUSTER_NAME: 'world', KUBECONFIG: kube.kubeconfigPath,
      AWS_ENDPOINT_URL_EC2: ec2.endpoint, AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId, AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey, ...extra,
    }),
    createVolume: async (volumeOptions = {}) => {
      const created = await client.send(new CreateVolumeCommand({
        AvailabilityZone: volumeOptions.zone ?? zone, Size: 10,
        VolumeType: volumeOptions.multiAttach ? 'io2' : 'gp3', ...(volumeOptions.multiAttach ? { Iops: 1000, MultiAttachEnabled: true } : {}),
      }));
      const volume = genVolume(created.VolumeId as string, volumeOptions.zone ?? zone, volumeOptions);
      kube.seed([pvObject(volume), pvcObject(volume)]);
      return { volumeId: volume.volumeId, uniqueName: uniqueNameFor(volume.volumeId), pvName: volume.pvName, claimName: volume.claim.name, namespace: volume.claim.namespace };
    },
    addPod: (name, volume, nodeName) => kube.seed([podObject(genPod(name, volume, nodeName))]),
    stop: async () => {
      client.destroy();
      await Promise.all([dynamo.stop(), ec2.stop(), kube.stop()]);
    },
  };
  return world;
}

async function runNode(client: EC2Client, name: string, zone: string): Promise<GenNode> {
  const ran = await client.send(new RunInstancesCommand({
    ImageId: 'ami-0eks0node0amazonlinux', InstanceType: 'm6i.xlarge', MinCount: 1, MaxCount: 1, Placement: { AvailabilityZone: zone },
  }));
  return { name, instanceId: ran.Instances?.[0]?.InstanceId as string, zone, instanceType: 'm6i.xlarge' };
}

function genVolume(volumeId: string, zone: string, options: { name?: string; namespace?: string; multiAttach?: boolean }): GenVolume {
  const name = options.name ?? `data-${volumeId.slice(-6)}`;
  return {
    volumeId, zone, volumeType: options.multiAttach ? 'io2' : 'gp3', sizeGiB: 10, multiAttach: options.multiAttach === true,
    pvName: `pvc-${randomUUID()}`, pvUid: randomUUID(), claim: { namespace: options.namespace ?? 'default', name, uid: randomUUID() },
    accessModes: options.multiAttach ? ['ReadWriteMany'] : ['ReadWriteOnce'], volumeMode: options.multiAttach ? 'Block' : 'Filesystem',
  };
}

function genPod(name: string, volume: WorldVolume, nodeName: string | undefined): GenPod {
  return {
    namespace: volume.namespace, name, uid: randomUUID(), app: name, owner: { kind: 'StatefulSet', name, uid: randomUUID() },
    ...(nodeName === undefined ? {} : { nodeName }), claims: [volume.claimName], phase: nodeName === undefined ? 'Pending' : 'Running',
  };
}
