/**
 * The shadow's preflight against the local EC2's IAM check (the stack's role policy): every
 * VolumeAttachment's next call is dry-run with its real volume, instance and device, and EC2's
 * answers (DryRunOperation / UnauthorizedOperation) become the verdicts. Untagged volumes are
 * named would-be-denied, for the attach a live object asks for and for the detach an attached one
 * will need; the takeover then refuses to begin unless told --despite-preflight. A dry run does not
 * evaluate the KMS grant EC2 makes at attach time, so the preflight sets each encrypted volume's key
 * beside the keys the stack lets the role grant on (KMS_KEY_ARNS, from kmsKeyArns): a volume under a
 * key outside them is named kms-key-unlisted (its attach would fail with CustomerKeyHasBeenRevoked),
 * and so is one under the account's aws/ebs key, which EC2 names by a key ARN nothing tells apart.
 */
import { AttachVolumeCommand } from '@aws-sdk/client-ec2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { volumeAttachmentName } from '../../../lambda/adapters/kubernetes/volume-attachment-name.js';
import { ATTACHER_FINALIZER, NODE_ID_ANNOTATION } from '../../../lambda/core/attacher/names.js';
import type { ShadowComparison } from '../../../lambda/core/attacher/shadow.js';
import { EBS_CSI_DRIVER } from '../../../lambda/core/types.js';
import { runMain, type Io } from '../../../lambda/cli/run.js';
import { sidecarOnKube } from '../../../sandbox/lease-election.js';
import { startWorld, type World, type WorldVolume } from '../../../sandbox/world.js';

const KEY = 'arn:aws:kms:us-east-1:123456789012:key/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';
const OTHER_KEY = 'arn:aws:kms:us-east-1:123456789012:key/11111111-2222-3333-4444-555555555555';

let world: World;
const v: Record<string, WorldVolume> = {};
let carriedOut = 0;

const run = async (argv: string[]) => {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = { out: (t) => out.push(t), err: (t) => err.push(t) };
  const code = await runMain(argv, world.env, io);
  return { code, out: out.join('\n'), err: err.join('\n') };
};

/** A VolumeAttachment kcm made on node-1; `device`: the sidecar attached it (finalizer, annotation, status). */
function kcmVa(volume: WorldVolume, device?: string): object {
  const node = world.nodes[0]!;
  const marks = device && { finalizers: [ATTACHER_FINALIZER], annotations: { [NODE_ID_ANNOTATION]: node.instanceId } };
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'VolumeAttachment',
    metadata: { name: volumeAttachmentName(volume.volumeId, node.name), ...marks },
    spec: { attacher: EBS_CSI_DRIVER, nodeName: node.name, source: { persistentVolumeName: volume.pvName } },
    ...(device && { status: { attached: true, attachmentMetadata: { devicePath: device } } }),
  };
}

beforeAll(async () => {
  world = await startWorld({ nodes: 1, mode: 'attacher', sidecar: true, env: { WRITES: 'off' }, iam: { kmsKeyArns: [KEY] } });
  world.ec2.onAction({
    before: (action) => {
      if (action === 'AttachVolume' || action === 'DetachVolume') carriedOut += 1;
    },
  });
  v.tagged = await world.createVolume({ name: 'data-tagged' });
  v.attached = await world.createVolume({ name: 'data-attached' });
  v.untagged = await world.createVolume({ name: 'data-untagged', untagged: true });
  v.untaggedAttached = await world.createVolume({ name: 'data-untagged-attached', untagged: true });
  v.granted = await world.createVolume({ name: 'data-granted', kmsKeyId: KEY });
  v.ungranted = await world.createVolume({ name: 'data-ungranted', kmsKeyId: OTHER_KEY });
  v.defaultKeyed = await world.createVolume({ name: 'data-default-keyed', encrypted: true });
  // The sidecar attached two (with its own role: the sandbox's setup keys act as an administrator).
  const instanceId = world.nodes[0]!.instanceId;
  for (const [volume, device] of [
    [v.attached, '/dev/xvdba'],
    [v.untaggedAttached, '/dev/xvdbb'],
  ] as const)
    await world.ec2Client.send(new AttachVolumeCommand({ VolumeId: volume.volumeId, InstanceId: instanceId, Device: device }));
  world.clock.advance(500);
  carriedOut = 0;
  world.kube.seed([
    kcmVa(v.tagged),
    kcmVa(v.attached, '/dev/xvdba'),
    kcmVa(v.untagged),
    kcmVa(v.untaggedAttached, '/dev/xvdbb'),
    kcmVa(v.granted),
    kcmVa(v.ungranted),
    kcmVa(v.defaultKeyed),
  ]);
  // The sidecar leads: its Lease is where the fence looks.
  const sidecar = sidecarOnKube(world.kube.kubeconfigPath, world.clock);
  await sidecar.elector.tick();
  await sidecar.close();
});
afterAll(async () => world?.stop());

const rowOf = (shadow: ShadowComparison, volume: WorldVolume) => shadow.rows.find((row) => row.volumeId === volume.volumeId);

describe('ebs-attach-detach shadow: the preflight', () => {
  it('names every volume EC2 would refuse our role, with the call and EC2’s reason, and carries out nothing', async () => {
    const result = await run(['shadow', '--json']);

    expect(result.code).toBe(0);
    const shadow = JSON.parse(result.out) as ShadowComparison;
    const denied = shadow.rows.filter((row) => row.verdict === 'would-be-denied').map((row) => row.volumeId);
    expect(denied.sort()).toEqual([v.untagged!.volumeId, v.untaggedAttached!.volumeId].sort());
    expect(rowOf(shadow, v.untagged!)?.detail).toMatch(
      new RegExp(
        `^AttachVolume ${v.untagged!.volumeId} to i-\\w+ as /dev/xvdaa: You are not authorized to perform this operation\\. .*ec2:AttachVolume on resource: arn:aws:ec2:[^:]+:\\d+:volume/${v.untagged!.volumeId}`,
      ),
    );
    expect(rowOf(shadow, v.untaggedAttached!)?.detail).toMatch(
      new RegExp(`^DetachVolume ${v.untaggedAttached!.volumeId} from i-\\w+ \\(/dev/xvdbb\\): You are not authorized .*ec2:DetachVolume`),
    );
    // EC2 evaluates the grant on the volume's key only when the attach is made, not in a dry run: the key is set beside KMS_KEY_ARNS.
    expect(rowOf(shadow, v.ungranted!)?.verdict).toBe('kms-key-unlisted');
    expect(rowOf(shadow, v.ungranted!)?.detail).toMatch(
      new RegExp(
        `^AttachVolume ${v.ungranted!.volumeId} to i-\\w+: the volume is encrypted under KMS key ${OTHER_KEY}, which KMS_KEY_ARNS does not list`,
      ),
    );
    expect(rowOf(shadow, v.ungranted!)?.detail).toContain('add the key to kmsKeyArns and redeploy');
    expect(rowOf(shadow, v.attached!)?.verdict).toBe('agrees');
    expect(rowOf(shadow, v.tagged!)?.verdict).toBe('attach-pending');
    expect(rowOf(shadow, v.granted!)?.verdict).toBe('attach-pending');
    expect(shadow.counts['would-be-denied']).toBe(2);
    // EC2 names the account's aws/ebs key by its key ARN: not recognisable, so named until listed, with how to find it.
    expect(rowOf(shadow, v.defaultKeyed!)?.verdict).toBe('kms-key-unlisted');
    expect(rowOf(shadow, v.defaultKeyed!)?.detail).toMatch(/encrypted under KMS key arn:aws:kms:[^:]+:\d{12}:key\//);
    expect(rowOf(shadow, v.defaultKeyed!)?.detail).toContain('`aws kms describe-key --key-id alias/aws/ebs`');
    expect(shadow.counts['kms-key-unlisted']).toBe(2);
    expect(carriedOut).toBe(0);
  });

  it('prints them in the table', async () => {
    const result = await run(['shadow']);

    const line = result.out.split('\n').find((l) => l.includes(v.untagged!.volumeId)) ?? '';
    expect(line).toMatch(/would-be-denied +AttachVolume vol-\w+ to i-\w+ as \/dev\/xvdaa: You are not authorized/);
    const keyLine = result.out.split('\n').find((l) => l.includes(v.ungranted!.volumeId)) ?? '';
    expect(keyLine).toMatch(/kms-key-unlisted +AttachVolume vol-\w+ to i-\w+: the volume is encrypted under KMS key arn:aws:kms:/);
  });

  it('the takeover refuses to begin while any is open, and begins when told --despite-preflight', async () => {
    const refused = await run(['takeover']);

    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/^not taking over: EC2 would refuse, or did not answer, our next call on 4 VolumeAttachment\(s\)/);
    expect(refused.err).toContain(v.untagged!.volumeId);
    expect(refused.err).toMatch(new RegExp(`${v.ungranted!.volumeId} on node-1: kms-key-unlisted: `));
    expect(refused.out).toBe('');

    const forced = await run(['takeover', '--despite-preflight']);

    expect(forced.code).toBe(0);
    expect(forced.err).toMatch(/^taking over despite 4 preflight row\(s\) \(--despite-preflight\)/);
    expect(forced.out).toMatch(/^writes (on again|were already on)/);
    expect(carriedOut).toBe(0);
  });
});
