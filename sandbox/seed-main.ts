/**
 * A small cluster in the running sandboxes, for a newcomer's first minutes: `npm run sandbox:seed`
 * with AWS_ENDPOINT_URL_EC2 (npm run sandbox:ec2) and KUBECONFIG (npm run sandbox:kube) set. It runs
 * two instances and registers them as nodes, creates EBS volumes with bound PVs and PVCs, schedules a
 * pod on each, and adds one pod whose claim is not bound yet, so `explain` has something to say.
 */
import { request } from 'node:https';
import { parseArgs } from 'node:util';
import { EC2Client, waitUntilInstanceRunning } from '@aws-sdk/client-ec2';
import { KubeConfig } from '@kubernetes/client-node';
import { csiNodeObject, nodeObject, podObject, pvcObject, pvObject } from './generate/kube-objects.js';
import { createGenVolume, genPod, runNode } from './small-cluster.js';

const { values } = parseArgs({ options: { nodes: { type: 'string', default: '2' }, zone: { type: 'string', default: 'us-east-1a' } } });
const count = Number(values.nodes);
/** The cluster name the CLI runs as (CLUSTER_NAME, `local` when unset): its resources carry that cluster's tags. */
const clusterTag = process.env.CLUSTER_NAME ?? 'local';
const endpoint = process.env.AWS_ENDPOINT_URL_EC2;
const kubeconfig = process.env.KUBECONFIG;
if (endpoint === undefined || kubeconfig === undefined) {
  console.error('sandbox:seed needs AWS_ENDPOINT_URL_EC2 (npm run sandbox:ec2) and KUBECONFIG (npm run sandbox:kube)');
  process.exit(1);
}

/** POST /_sandbox/seed of the kube sandbox, with the kubeconfig's server, CA and token. */
async function seedKube(objects: object[]): Promise<void> {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig!);
  const cluster = kc.getCurrentCluster()!;
  const token = kc.getCurrentUser()?.token ?? '';
  const ca = cluster.caData === undefined ? undefined : Buffer.from(cluster.caData, 'base64');
  const body = JSON.stringify(objects);
  await new Promise<void>((resolve, reject) => {
    const req = request(
      new URL('/_sandbox/seed', cluster.server),
      { method: 'POST', ca, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`seeding the kube sandbox: HTTP ${res.statusCode}`))));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const ec2 = new EC2Client({
  endpoint,
  region: process.env.AWS_REGION ?? 'us-east-1',
  credentials: { accessKeyId: process.env.AWS_ACCESS_KEY_ID ?? 'local', secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY ?? 'local' },
});
try {
  const objects: object[] = [];
  const lines: string[] = [];
  for (let i = 1; i <= count; i++) {
    const node = await runNode(ec2, `node-${i}`, values.zone, clusterTag);
    const volume = await createGenVolume(ec2, { zone: values.zone, name: `data-db-${i - 1}`, cluster: clusterTag });
    const pod = genPod(`db-${i - 1}`, 'default', [volume.claim.name], node.name);
    objects.push(nodeObject(node), csiNodeObject(node), pvObject(volume), pvcObject(volume), podObject(pod));
    lines.push(`node ${node.name} (${node.instanceId}); pod default/${pod.name} with PVC ${volume.claim.name} on ${volume.volumeId}`);
  }
  // A claim the PV controller has not bound yet: its pod is scheduled but cannot get a volume.
  const waiting = await createGenVolume(ec2, { zone: values.zone, name: 'data-web-0', cluster: clusterTag });
  const unbound = pvcObject(waiting) as { spec: Record<string, unknown>; status: Record<string, unknown> };
  delete unbound.spec.volumeName;
  unbound.status = { phase: 'Pending' };
  objects.push(unbound, podObject(genPod('web-0', 'default', [waiting.claim.name], 'node-1')));
  lines.push(`pod default/web-0 on node-1 with PVC ${waiting.claim.name}, not bound yet`);
  await seedKube(objects);
  // A pending instance refuses AttachVolume: hand over the cluster once its instances run.
  const instanceIds = objects.flatMap((o) => {
    const providerID = (o as { kind?: string; spec?: { providerID?: string } }).spec?.providerID;
    return providerID === undefined ? [] : [providerID.split('/').pop()!];
  });
  await waitUntilInstanceRunning({ client: ec2, maxWaitTime: 60, minDelay: 1, maxDelay: 2 }, { InstanceIds: instanceIds });
  for (const line of lines) console.log(line);
} finally {
  ec2.destroy();
}
