/**
 * The shadow step (issue #12) against the local stack: VolumeAttachments as the csi-attacher
 * sidecar left them, EC2 as it is, and the comparison — printed by `ebs-attach-detach shadow`,
 * and counted in metrics by every dry-run pass (WRITES=off, or fenced off by the sidecar's Lease).
 */
import { AttachVolumeCommand } from '@aws-sdk/client-ec2';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { volumeAttachmentName } from '../../lambda/adapters/kubernetes/volume-attachment-name.js';
import { ATTACHER_FINALIZER, NODE_ID_ANNOTATION } from '../../lambda/core/attacher/names.js';
import { EBS_CSI_DRIVER } from '../../lambda/core/types.js';
import { runMain, type Io } from '../../lambda/cli/run.js';
import { Metric } from '../../lambda/observability/metric-names.js';
import type { PassReport } from '../../lambda/reconcile/pass/types.js';
import { lambdaContext } from '../../sandbox/events.js';
import { SIDECAR_LEASE, sidecarOnKube } from '../../sandbox/lease-election.js';
import { startWorld, type World, type WorldVolume } from '../../sandbox/world.js';
import { readEmf } from '../observability/emf.js';

let world: World;
const volumes: WorldVolume[] = [];
const vaOf = (i: number, node: string) => volumeAttachmentName(volumes[i]!.volumeId, node);

async function attachInEc2(volume: WorldVolume, instanceId: string, device: string): Promise<void> {
  await world.ec2Client.send(new AttachVolumeCommand({ VolumeId: volume.volumeId, InstanceId: instanceId, Device: device }));
}

/** A VolumeAttachment kcm created; `sidecar`: the marks and status the sidecar wrote after attaching it. */
function kcmVa(volume: WorldVolume, nodeIndex: number, sidecar?: { devicePath: string }): object {
  const node = world.nodes[nodeIndex]!;
  const marks = sidecar && { finalizers: [ATTACHER_FINALIZER], annotations: { [NODE_ID_ANNOTATION]: node.instanceId } };
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'VolumeAttachment',
    metadata: { name: volumeAttachmentName(volume.volumeId, node.name), ...marks },
    spec: { attacher: EBS_CSI_DRIVER, nodeName: node.name, source: { persistentVolumeName: volume.pvName } },
    ...(sidecar && { status: { attached: true, attachmentMetadata: { devicePath: sidecar.devicePath } } }),
  };
}

const run = async (argv: string[], env: Record<string, string | undefined> = world.env) => {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = { out: (t) => out.push(t), err: (t) => err.push(t) };
  const code = await runMain(argv, env, io);
  return { code, out: out.join('\n'), err: err.join('\n') };
};
/** AttachVolume and DetachVolume EC2 carried out (its hooks hear no dry run: those end at DryRunOperation). */
let carriedOut = 0;
const mutatingCalls = () => carriedOut;
/** The arrangement's own AttachVolume calls. */
let arranged = 0;
const mutations = () => mutatingCalls() - arranged;

beforeAll(async () => {
  world = await startWorld({ nodes: 2, mode: 'attacher', sidecar: true, env: { WRITES: 'off' } });
  world.ec2.onAction({
    before: (action) => {
      if (action === 'AttachVolume' || action === 'DetachVolume') carriedOut += 1;
    },
  });
  for (const name of ['agrees', 'lost', 'new', 'orphan']) volumes.push(await world.createVolume({ name: `data-${name}` }));
  const [agrees, lost, fresh, orphan] = volumes as [WorldVolume, WorldVolume, WorldVolume, WorldVolume];
  await attachInEc2(agrees, world.nodes[0]!.instanceId, '/dev/xvdba');
  await attachInEc2(orphan, world.nodes[1]!.instanceId, '/dev/xvdbb');
  world.clock.advance(500); // EC2's attach delay passes
  arranged = mutatingCalls();
  // The sidecar attached `agrees`; it says `lost` is attached, which EC2 does not show; kcm just created `new`.
  world.kube.seed([kcmVa(agrees, 0, { devicePath: '/dev/xvdba' }), kcmVa(lost, 0, { devicePath: '/dev/xvdbc' }), kcmVa(fresh, 1)]);
});
afterAll(async () => world?.stop());

describe('ebs-attach-detach shadow', () => {
  it('prints one row per VolumeAttachment and per attachment none names, with its verdict, and exits 0', async () => {
    const result = await run(['shadow']);

    expect(result.code).toBe(0);
    const lines = result.out.split('\n');
    expect(lines[0]).toMatch(/^VOLUMEATTACHMENT +VOLUME +NODE +SIDECAR +FINALIZER +NODE-ID +EC2 +WE WOULD +VERDICT +WHY$/);
    const row = (text: string) => lines.find((line) => line.includes(text)) ?? '';
    expect(row(vaOf(0, 'node-1'))).toMatch(/attached +yes +i-\w+ +attached +none +agrees/);
    expect(row(vaOf(1, 'node-1'))).toMatch(/attached +yes +i-\w+ +detached +attach +va-attached-ec2-not/);
    expect(row(vaOf(2, 'node-2'))).toMatch(/not attached +no +- +detached +attach +attach-pending/);
    expect(row(volumes[3]!.volumeId)).toMatch(/^- +vol-\w+ +node-2 +no VA +no +- +attached +none +ec2-attached-unrequested/);
    // No sidecar has led here yet: the Lease the fence would hold is missing, and the first row says so.
    expect(lines[1]).toMatch(
      /^- +- +- +no Lease +no +- +- +none +no-sidecar-lease +no Lease kube-system\/external-attacher-leader-ebs-csi-aws-com: the sidecar runs in another namespace or under another name \(leaseFenceNamespace, leaseFenceName\), or without leader election; the fence would act on nothing$/,
    );
    expect(lines.at(-1)).toBe(
      '5 row(s): 1 agrees, 1 va-attached-ec2-not, 1 ec2-attached-unrequested, 1 attach-pending, 1 no-sidecar-lease.',
    );
  });

  it('no sidecar-Lease row where the sidecar leads, nor where the operator said no sidecar runs (SIDECAR_GONE=true)', async () => {
    expect(JSON.parse((await run(['shadow', '--json'], { ...world.env, SIDECAR_GONE: 'true' })).out)).toMatchObject({
      counts: { 'no-sidecar-lease': 0 },
    });
    const sidecar = sidecarOnKube(world.kube.kubeconfigPath, world.clock);
    try {
      await sidecar.elector.tick();
      expect(JSON.parse((await run(['shadow', '--json'])).out)).toMatchObject({ counts: { 'no-sidecar-lease': 0, agrees: 1 } });
    } finally {
      world.kube.components.delete('Lease', SIDECAR_LEASE.namespace, SIDECAR_LEASE.name);
      await sidecar.close();
    }
  });

  it('changes nothing, not even with writes and the lease fence on: no EC2 call, no mark on a VA, no Lease', async () => {
    const result = await run(['shadow', '--json'], { ...world.env, WRITES: 'on', LEASE_FENCE: 'on' });

    expect(JSON.parse(result.out)).toMatchObject({ counts: { agrees: 1, 'attach-pending': 1 } });
    expect(mutations()).toBe(0);
    expect(world.kube.get('VolumeAttachment', undefined, vaOf(2, 'node-2'))).not.toHaveProperty('metadata.finalizers');
    expect(world.kube.get('Lease', SIDECAR_LEASE.namespace, SIDECAR_LEASE.name)).toBeUndefined();
  });

  it('WRITES=off with the fence on: reconcile is a dry run that leaves the Lease alone', async () => {
    const result = await run(['reconcile', '--json'], { ...world.env, WRITES: 'off', LEASE_FENCE: 'on' });

    expect(JSON.parse(result.out)).toMatchObject({ dryRun: true, shadow: { counts: { 'va-attached-ec2-not': 1 } } });
    expect(mutations()).toBe(0);
    expect(world.kube.get('Lease', SIDECAR_LEASE.namespace, SIDECAR_LEASE.name)).toBeUndefined();
  });

  it('an unreadable cluster compares nothing: exit 1 and why', async () => {
    world.kube.faults.failNext({ method: 'GET', path: /volumeattachments/ }, 10, 403, 'Forbidden');
    try {
      const result = await run(['shadow']);

      expect(result.code).toBe(1);
      expect(result.err).toMatch(/^cannot compare: /);
      expect(result.out).toBe('');
    } finally {
      world.kube.faults.clear();
    }
  });

  it('in controller mode there is no sidecar to compare with: exit 1 and why', async () => {
    const result = await run(['shadow'], { ...world.env, OPERATING_MODE: 'controller' });

    expect(result.code).toBe(1);
    expect(result.err).toContain('set OPERATING_MODE=attacher');
  });
});

describe('shadow metrics of every dry-run attacher pass', () => {
  let stdout = '';
  beforeAll(() => {
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
  });
  afterEach(() => vi.restoreAllMocks());
  afterAll(() => vi.unstubAllEnvs());
  const capture = () => {
    stdout = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      stdout += String(chunk);
      return true;
    });
  };
  const verdicts = (): Record<string, unknown> =>
    Object.fromEntries(
      readEmf(stdout)
        .filter((m) => m.name === Metric.ShadowVerdicts)
        .map((m) => [String(m.dimensions.Verdict), m.value]),
    );

  it('WRITES=off: the scheduled pass counts every verdict, zeros included, and writes nothing', async () => {
    capture();
    const result = await world.handlers().scheduled({ pass: 'full' }, lambdaContext());

    expect(result).toMatchObject({ actions: 2 });
    expect(verdicts()).toEqual({
      agrees: 1,
      'va-attached-ec2-not': 1,
      'ec2-attached-unrequested': 1,
      'detach-pending': 0,
      'attach-pending': 1,
      'sidecar-error': 0,
      unresolvable: 0,
      'plan-differs': 0,
      unverified: 0,
      'no-sidecar-lease': 1,
      'would-be-denied': 0,
      'kms-key-unlisted': 0,
      'preflight-unanswered': 0,
    });
    expect(mutations()).toBe(0);
  });

  it('fenced off by the live sidecar (writes on): the pass is a dry run that compares and counts', async () => {
    const sidecar = sidecarOnKube(world.kube.kubeconfigPath, world.clock);
    try {
      await sidecar.elector.tick();
      capture();
      const result = await run(['reconcile', '--json'], { ...world.env, WRITES: 'on', LEASE_FENCE: 'on' });

      const report = JSON.parse(result.out) as PassReport;
      expect(report).toMatchObject({ dryRun: true, fenced: expect.stringMatching(/^held by ebs-csi-controller-/) as unknown });
      expect(report.shadow?.counts).toMatchObject({ agrees: 1, 'va-attached-ec2-not': 1, 'attach-pending': 1 });
      expect(verdicts()).toMatchObject({ agrees: 1, 'attach-pending': 1, 'sidecar-error': 0, 'no-sidecar-lease': 0 });
      expect(mutations()).toBe(0);
    } finally {
      await sidecar.close();
    }
  });
});
