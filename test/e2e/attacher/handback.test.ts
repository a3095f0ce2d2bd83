/**
 * `ebs-attach-detach handback` against the local stack with the simulated csi-attacher sidecar
 * (docs/eks.md, rollback): writes off in the store at once, a wait for what may still act, the
 * Lease released; then the sidecar leads and attaches, while our passes only plan; `takeover`
 * turns writes on again, and passes fenced by the leading sidecar count as waiting, not failback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain, type Io } from '../../../lambda/cli/run.js';
import type { RunningClock } from '../../../sandbox/clock.js';
import { lambdaContext } from '../../../sandbox/events.js';
import type { Kubelets } from '../../../sandbox/kubelets.js';
import { SIDECAR_LEASE } from '../../../sandbox/lease-election.js';
import type { Handlers } from '../../../sandbox/local-stack.js';
import { runSidecarFor, type Sidecar } from '../../../sandbox/sidecar/sidecar.js';
import type { World, WorldVolume } from '../../../sandbox/world.js';
import { startSidecarWorld, type SidecarWorld } from './fixture.js';

const S = 1000;
const US = 'ebs-attach-detach/world';
const SIDECAR_POD = 'ebs-csi-controller-6f7d9c8b5-x2k4p';

let world: World;
let clock: RunningClock;
let handlers: Handlers;
let kubelets: Kubelets;
let sidecar: Sidecar;

const lease = () =>
  (world.kube.get('Lease', SIDECAR_LEASE.namespace, SIDECAR_LEASE.name) as { spec: { holderIdentity?: string } } | undefined)?.spec;
const mutations = () => (world.ec2.counters().calls.AttachVolume ?? 0) + (world.ec2.counters().calls.DetachVolume ?? 0);
const fullPass = () => handlers.scheduled({ pass: 'full' }, lambdaContext());
const cluster = () => {
  world.kcm!.step();
  kubelets.run();
};
const vaAttached = (volume: WorldVolume) =>
  (world.kube.list('VolumeAttachment') as { spec: { source: { persistentVolumeName?: string } }; status?: { attached?: boolean } }[]).find(
    (va) => va.spec.source.persistentVolumeName === volume.pvName,
  )?.status?.attached === true;

async function cli(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = { out: (t) => out.push(t), err: (t) => err.push(t) };
  const code = await runMain(argv, world.env, io, { clock });
  return { code, out, err: err.join('\n') };
}

async function addPod(name: string, node: string): Promise<WorldVolume> {
  const volume = await world.createVolume({ name: `data-${name}` });
  world.addPod(name, volume, node);
  return volume;
}

let started: SidecarWorld;

beforeAll(async () => {
  started = await startSidecarWorld(2, SIDECAR_POD);
  ({ world, clock, handlers, kubelets, sidecar } = started);
  // The takeover (Step 2): the sidecar led, its controller was scaled to 0, our passes took the Lease.
  await sidecar.step();
  await fullPass();
  clock.advance(16 * S);
  await fullPass();
});
afterAll(() => started.stop());

describe('handback to the csi-attacher sidecar, and takeover again', () => {
  it('we lead: a new pod is attached by our passes', async () => {
    expect(lease()?.holderIdentity).toBe(US);
    const volume = await addPod('db-0', 'node-1');
    for (let i = 0; i < 3 && !vaAttached(volume); i++) {
      cluster();
      await fullPass();
    }
    expect(vaAttached(volume)).toBe(true);
  });

  it('handback: writes off at once, waits for a pass still acting, releases the Lease, and says each step', async () => {
    // A pass of another execution environment may still act for 2 s more.
    const until = clock.now() + 2 * S;
    await world.controller.ports.handover!.enter('in-flight', until);
    const { code, out } = await cli(['handback']);

    expect(code).toBe(0);
    expect(out[0]).toMatch(/^1\. writes off in the store at .*: every pass from now on only plans, and none can start acting$/);
    expect(out[1]).toMatch(/^2\. waiting: 1 pass\(es\) \(in-flight\) may still act, at the latest until /);
    expect(out.at(-2)).toMatch(/^2\. nothing of ours can act any more/);
    expect(out.at(-1)).toBe(
      "3. released the Lease kube-system/external-attacher-leader-ebs-csi-aws-com (emptied, as client-go releases it): the sidecar's standby takes it at its next retry, within 5 s",
    );
    expect(clock.now()).toBeGreaterThanOrEqual(until);
    expect(lease()?.holderIdentity).toBe('');
  });

  it('the sidecar leads at its next retry and attaches the next pod; our passes only plan and say why', async () => {
    expect((await sidecar.step()).leads).toBe(true);
    const ours = mutations();
    const volume = await addPod('db-1', 'node-2');
    for (let i = 0; i < 4; i++) {
      cluster();
      const before = mutations();
      const report = await fullPass();
      expect(report.fenced).toBeUndefined();
      expect(report.writesOff).toMatch(/^writes are off by handback at .*: the csi-attacher sidecar is in charge/);
      expect(mutations()).toBe(before); // our pass changed nothing in EC2
      await runSidecarFor(sidecar, clock, 5 * S, cluster);
    }
    expect(vaAttached(volume)).toBe(true);
    expect(mutations()).toBe(ours + 1); // the sidecar's AttachVolume, one
    expect(lease()?.holderIdentity).toBe(SIDECAR_POD);
  });

  it('handback again: writes were already off, nothing to wait for, the Lease is not ours to release', async () => {
    const { code, out } = await cli(['handback']);
    expect(code).toBe(0);
    expect(out).toEqual([
      expect.stringMatching(/^1\. writes were already off \(since .*\): every pass only plans$/),
      expect.stringMatching(/^2\. nothing of ours can act any more/),
      `3. did not release the Lease kube-system/external-attacher-leader-ebs-csi-aws-com: the Lease is held by ${SIDECAR_POD}, not by us (${US})`,
    ]);
  });

  it('takeover: writes on again; while the sidecar leads our passes are fenced and waiting, not failed back', async () => {
    const { code, out } = await cli(['takeover']);
    expect(code).toBe(0);
    expect(out[0]).toMatch(
      /^writes on again in the store at .*: passes act from their next start; they take the sidecar's Lease once it lapses/,
    );
    await sidecar.step();
    const report = await world.invocation().fullPass({ deadline: clock.now() + 60 * S });
    expect(report.fence).toEqual({ state: 'waiting', holder: SIDECAR_POD });
  });
});
