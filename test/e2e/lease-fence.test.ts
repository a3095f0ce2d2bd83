import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningClock } from '../../sandbox/clock.js';
import { lambdaContext } from '../../sandbox/events.js';
import { SIDECAR_LEASE, sidecarOnKube } from '../../sandbox/lease-election.js';
import type { Handlers } from '../../sandbox/local-stack.js';
import type { World } from '../../sandbox/world.js';
import { reportedOn } from '../support/kube-reads.js';
import { useWorld } from './world-fixture.js';

const S = 1000;
const US = 'ebs-attach-detach/world';

let world: World;
let clock: RunningClock;
let handlers: Handlers;
useWorld((started) => ({ world, clock, handlers } = started), { env: { LEASE_FENCE: 'on' } });

let sidecar: ReturnType<typeof sidecarOnKube>;
beforeEach(() => (sidecar = sidecarOnKube(world.kube.kubeconfigPath, clock)));
afterEach(() => sidecar.close());

const holder = () =>
  (world.kube.get('Lease', SIDECAR_LEASE.namespace, SIDECAR_LEASE.name) as { spec: { holderIdentity?: string } }).spec.holderIdentity;
const mutations = () => {
  const calls = world.ec2.counters().calls;
  return (calls.AttachVolume ?? 0) + (calls.DetachVolume ?? 0);
};
const fullPass = () => handlers.scheduled({ pass: 'full' }, lambdaContext());

/** The sidecar's retry loop for `ms` of sandbox time: one attempt per 5 s retry period; true when it leads at the end. */
async function sidecarRuns(ms: number): Promise<boolean> {
  let leads = false;
  for (let t = 0; t < ms; t += 5 * S) {
    leads = await sidecar.elector.tick();
    clock.advance(5 * S);
  }
  return leads;
}

/** The sidecar led once and its pod went away: our first pass sees its record, the next (16 s on) takes it. */
async function takeOverLease(): Promise<void> {
  await sidecar.elector.tick();
  await fullPass();
  clock.advance(16 * S);
}

async function podNeedingAttach(name: string, node = 'node-1') {
  const volume = await world.createVolume({ name: `data-${name}` });
  world.addPod(name, volume, node);
  return volume;
}

describe('LEASE_FENCE=on through the real handlers, with the sidecar’s elector on the local kube API', () => {
  it('takes the Lease of a sidecar that stopped renewing once it has seen it unchanged for 15 s, then attaches', async () => {
    await sidecar.elector.tick(); // the sidecar led once, then its pod went away
    const volume = await podNeedingAttach('db-0');

    expect(await fullPass()).toMatchObject({ fenced: expect.stringMatching(/^held by ebs-csi-controller-/) as unknown });
    expect(mutations()).toBe(0);

    clock.advance(16 * S);
    expect(await fullPass()).toMatchObject({ converged: true, actions: 1 });
    expect(holder()).toBe(US);
    expect(reportedOn(world, 'node-1')).toEqual([{ name: volume.uniqueName, devicePath: '/dev/xvdaa' }]);
  });

  it('makes no EC2 mutating call while the sidecar renews its Lease, and each pass says why', async () => {
    await podNeedingAttach('db-0');
    for (let pass = 0; pass < 3; pass++) {
      expect(await sidecarRuns(20 * S)).toBe(true);
      const result = await fullPass();
      expect(result.fenced).toMatch(/^held by ebs-csi-controller-6f7d9c8b5-x2k4p; expires in \d+ s unless renewed$/);
    }
    expect(mutations()).toBe(0);
    expect(holder()).toBe('ebs-csi-controller-6f7d9c8b5-x2k4p');
  });

  it('once our passes stop, the standby takes the Lease after our 180 s record, and a late pass of ours makes no AttachVolume or DetachVolume', async () => {
    await takeOverLease();
    await podNeedingAttach('db-0');
    expect(await fullPass()).toMatchObject({ converged: true, actions: 1 });
    expect(holder()).toBe(US);
    expect(await sidecarRuns(60 * S)).toBe(false); // our schedule stops here: the standby waits out our record

    expect(await sidecarRuns(125 * S)).toBe(true);
    const before = mutations();
    await podNeedingAttach('web-0', 'node-2');
    world.kube.kubelet.deletePod('default', 'db-0');

    const late = await fullPass();
    expect(late.fenced).toMatch(/^held by ebs-csi-controller-/);
    expect(mutations()).toBe(before);
  });

  it('finds no Lease (the sidecar runs elsewhere or without leader election): creates none and acts on nothing', async () => {
    await podNeedingAttach('db-0');
    expect(await fullPass()).toMatchObject({ fenced: expect.stringMatching(/^no Lease found/) as unknown });
    expect(world.kube.get('Lease', SIDECAR_LEASE.namespace, SIDECAR_LEASE.name)).toBeUndefined();
    expect(mutations()).toBe(0);
  });

  it('separate execution environments count from the first sight any of them had: the third, cold, takes it at 15 s', async () => {
    await sidecar.elector.tick();
    await podNeedingAttach('db-0');
    const cold = () => world.handlers(world.invocation()).scheduled({ pass: 'full' }, lambdaContext());
    expect((await cold()).fenced).toMatch(/expires in 15 s unless renewed$/);
    clock.advance(10 * S);
    expect((await cold()).fenced).toMatch(/expires in [45] s unless renewed$/);
    clock.advance(6 * S);
    expect(await cold()).toMatchObject({ converged: true, actions: 1 });
    expect(holder()).toBe(US);
  });

  it('rollback: once our Lease is deleted the standby leads within one retry period (5 s)', async () => {
    await takeOverLease();
    await fullPass();
    expect(holder()).toBe(US);
    expect(await sidecar.elector.tick()).toBe(false);

    await sidecar.deleteLease();
    const deletedAt = clock.now();
    expect(await sidecarRuns(5 * S)).toBe(true);
    expect(clock.now() - deletedAt).toBeLessThanOrEqual(5 * S + 1 * S);
    expect(holder()).toBe('ebs-csi-controller-6f7d9c8b5-x2k4p');
  });
});
