/**
 * The local EC2 holds a principal to the stack's role policy (sandbox/stack-policy.ts builds it
 * from infra/, not a copy) and answers as EC2 does: `UnauthorizedOperation` (403) with an encoded
 * authorization message, `DryRunOperation` (412) only when the call would be authorized, and
 * `CustomerKeyHasBeenRevoked` when EC2 cannot create the grant on an encrypted volume's key.
 */
import {
  AttachVolumeCommand,
  CreateVolumeCommand,
  DeleteTagsCommand,
  DescribeVolumesCommand,
  DetachVolumeCommand,
  EC2Client,
  RunInstancesCommand,
} from '@aws-sdk/client-ec2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instanceTagsFor, volumeTagsFor } from '../../sandbox/cluster-tags.js';
import type { IamModel } from '../../sandbox/ec2/iam/authorize.js';
import type { LocalEc2 } from '../../sandbox/ec2/server.js';
import { SANDBOX_IMAGE_ID } from '../../sandbox/ec2/state/images.js';
import { controllerPrincipal, SANDBOX_REGION, SHARED_EVALUATOR } from '../../sandbox/stack-policy.js';
import { localEc2, ZONE } from './support.js';

const KEY = 'arn:aws:kms:us-east-1:123456789012:key/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';
const OTHER_KEY = 'arn:aws:kms:us-east-1:123456789012:key/11111111-2222-3333-4444-555555555555';
const ROLE = { accessKeyId: 'AKIDCONTROLLERROLE', secretAccessKey: 'x' };
const ADMIN = { accessKeyId: 'AKIDADMIN', secretAccessKey: 'x' };

let ec2: LocalEc2;
let role: EC2Client;
let admin: EC2Client;
beforeAll(async () => {
  const principal = await controllerPrincipal({ clusterName: 'prod', mode: 'controller', kmsKeyArns: [KEY] });
  const iam: IamModel = { principals: new Map([[ROLE.accessKeyId, principal]]), evaluator: SHARED_EVALUATOR, region: SANDBOX_REGION };
  ec2 = await localEc2({ iam });
  const client = (credentials: typeof ROLE) =>
    new EC2Client({ region: SANDBOX_REGION, endpoint: ec2.endpoint, credentials, maxAttempts: 1 });
  [role, admin] = [client(ROLE), client(ADMIN)];
}, 60_000);
afterAll(async () => {
  role.destroy();
  admin.destroy();
  await ec2.stop();
});

const tagSpec = (type: 'volume' | 'instance', tags: Record<string, string>) => [
  { ResourceType: type, Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })) },
];
async function clusterInstance(): Promise<string> {
  const ran = await admin.send(
    new RunInstancesCommand({
      ImageId: SANDBOX_IMAGE_ID,
      MinCount: 1,
      MaxCount: 1,
      InstanceType: 'm6i.large',
      Placement: { AvailabilityZone: ZONE },
      TagSpecifications: tagSpec('instance', instanceTagsFor('prod')),
    }),
  );
  return ran.Instances?.[0]?.InstanceId as string;
}
async function volume(options: { tags?: Record<string, string>; kmsKeyId?: string; encrypted?: boolean } = {}): Promise<string> {
  const created = await admin.send(
    new CreateVolumeCommand({
      AvailabilityZone: ZONE,
      Size: 10,
      VolumeType: 'gp3',
      TagSpecifications: tagSpec('volume', options.tags ?? volumeTagsFor('prod')),
      ...(options.kmsKeyId === undefined ? {} : { Encrypted: true, KmsKeyId: options.kmsKeyId }),
      ...(options.encrypted === true ? { Encrypted: true } : {}),
    }),
  );
  return created.VolumeId as string;
}
const refusal = (call: Promise<unknown>) =>
  call.then(
    () => undefined,
    (error: { name: string; message: string; $metadata: { httpStatusCode?: number } }) => ({
      code: error.name,
      status: error.$metadata.httpStatusCode,
      message: error.message,
    }),
  );
const attach = (volumeId: string, instanceId: string, device: string, dryRun = false) =>
  role.send(new AttachVolumeCommand({ VolumeId: volumeId, InstanceId: instanceId, Device: device, DryRun: dryRun }));

describe("the local EC2 under the stack's role policy", () => {
  it('lets the role attach a volume and an instance that carry the cluster’s tags; a dry run says it would succeed', async () => {
    const [instanceId, volumeId] = [await clusterInstance(), await volume()];
    expect(await refusal(attach(volumeId, instanceId, '/dev/xvdaa', true))).toMatchObject({ code: 'DryRunOperation', status: 412 });
    expect(await refusal(attach(volumeId, instanceId, '/dev/xvdaa'))).toBeUndefined();
  });

  it("refuses exactly as EC2 does once the volume's tag is removed, dry run or not", async () => {
    const [instanceId, volumeId] = [await clusterInstance(), await volume()];
    const withoutTag = Object.keys(volumeTagsFor('prod')).map((Key) => ({ Key }));
    await admin.send(new DeleteTagsCommand({ Resources: [volumeId], Tags: withoutTag }));

    const refused = await refusal(attach(volumeId, instanceId, '/dev/xvdaa'));
    const resource = `arn:aws:ec2:us-east-1:123456789012:volume/${volumeId}`;
    expect(refused).toMatchObject({ code: 'UnauthorizedOperation', status: 403 });
    expect(refused?.message).toMatch(
      new RegExp(
        `^You are not authorized to perform this operation\\. User: arn:aws:sts::123456789012:assumed-role/ebs-attach-detach-prod-ControllerRole/\\S+ is not authorized to perform: ec2:AttachVolume on resource: ${resource} because no identity-based policy allows the ec2:AttachVolume action\\. Encoded authorization failure message: [A-Za-z0-9_-]+$`,
      ),
    );
    const decoded = JSON.parse(Buffer.from(refused?.message.split(': ').at(-1) ?? '', 'base64url').toString()) as Record<string, unknown>;
    expect(decoded).toMatchObject({ allowed: false, context: { action: 'ec2:AttachVolume', resource } });
    expect(await refusal(attach(volumeId, instanceId, '/dev/xvdaa', true))).toMatchObject({ code: 'UnauthorizedOperation', status: 403 });
    expect(ec2.world.volumes.get(volumeId)?.attachments.size).toBe(0);
  });

  // The shadow preflight (attacher mode) asks with the real instance and device before it acts.
  it('answers a dry-run DetachVolume naming the real instance and device as EC2 does, and changes nothing', async () => {
    const [instanceId, volumeId] = [await clusterInstance(), await volume()];
    await attach(volumeId, instanceId, '/dev/xvdac');
    const detach = () =>
      role.send(new DetachVolumeCommand({ VolumeId: volumeId, InstanceId: instanceId, Device: '/dev/xvdac', DryRun: true }));
    expect(await refusal(detach())).toEqual({
      code: 'DryRunOperation',
      status: 412,
      message: 'Request would have succeeded, but DryRun flag is set.',
    });

    const withoutTag = Object.keys(volumeTagsFor('prod')).map((Key) => ({ Key }));
    await admin.send(new DeleteTagsCommand({ Resources: [volumeId], Tags: withoutTag }));
    const refused = await refusal(detach());
    expect(refused).toMatchObject({ code: 'UnauthorizedOperation', status: 403 });
    expect(refused?.message).toContain(
      `is not authorized to perform: ec2:DetachVolume on resource: arn:aws:ec2:us-east-1:123456789012:volume/${volumeId} because`,
    );
    expect([...(ec2.world.volumes.get(volumeId)?.attachments.keys() ?? [])]).toEqual([instanceId]);
  });

  it("refuses another cluster's instance", async () => {
    const volumeId = await volume();
    const other = await clusterInstance();
    ec2.world.instances.get(other)?.tags.clear();
    expect(await refusal(attach(volumeId, other, '/dev/xvdaa'))).toMatchObject({ code: 'UnauthorizedOperation' });
  });

  it('lets the role describe, and nothing it was not granted', async () => {
    expect(await refusal(role.send(new DescribeVolumesCommand({})))).toBeUndefined();
    const create = role.send(new CreateVolumeCommand({ AvailabilityZone: ZONE, Size: 1 }));
    expect(await refusal(create)).toMatchObject({ code: 'UnauthorizedOperation', status: 403 });
  });

  it('attaches a volume under a customer-managed key the role may grant on, and refuses one under another key', async () => {
    const instanceId = await clusterInstance();
    const granted = await volume({ kmsKeyId: KEY });
    const ungranted = await volume({ kmsKeyId: OTHER_KEY });
    expect(await refusal(attach(granted, instanceId, '/dev/xvdaa'))).toBeUndefined();
    expect(await refusal(attach(ungranted, instanceId, '/dev/xvdab'))).toMatchObject({
      code: 'CustomerKeyHasBeenRevoked',
      status: 400,
      message: `Volume ${ungranted} cannot be attached. The encrypted volume was unable to access the KMS master key.`,
    });
    const described = await role.send(new DescribeVolumesCommand({ VolumeIds: [granted] }));
    expect(described.Volumes?.[0]).toMatchObject({ Encrypted: true, KmsKeyId: KEY });
  });

  // EC2 names a volume's key by its key ARN, even the account's AWS-managed aws/ebs key (DescribeVolumes
  // `KmsKeyId`: "the ARN of the KMS key"; an alias ARN given at creation reads back as the key ARN,
  // terraform-provider-aws#2407). That key's policy admits the account's callers through EC2: no grant needed.
  it('names the aws/ebs key of a volume encrypted without a KmsKeyId by a key ARN, and attaches it without kmsKeyArns naming it', async () => {
    const instanceId = await clusterInstance();
    const defaultKeyed = await volume({ encrypted: true });
    const described = await role.send(new DescribeVolumesCommand({ VolumeIds: [defaultKeyed] }));
    expect(described.Volumes?.[0]?.Encrypted).toBe(true);
    expect(described.Volumes?.[0]?.KmsKeyId).toMatch(
      /^arn:aws:kms:us-east-1:123456789012:key\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    );
    expect(described.Volumes?.[0]?.KmsKeyId).not.toBe(KEY);
    expect(await refusal(attach(defaultKeyed, instanceId, '/dev/xvdac'))).toBeUndefined();
  });
});
