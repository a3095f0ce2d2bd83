/**
 * A Lambda killed mid-attach in attacher mode (timeout, out of memory): the invocation dies with
 * its intent written, either just before AttachVolume went out or just after EC2 accepted it, and
 * nothing of its own follow-up (status, event) ever happens. Its lease holds the volume until the
 * dead invocation's end plus the margin; the first pass after that resolves the intent against
 * EC2, attaches only if EC2 shows nothing, and writes the VolumeAttachment's status exactly once.
 */
import { describe, expect, it } from 'vitest';
import type { Ports } from '../../../lambda/composition.js';
import { lambdaContext } from '../../../sandbox/events.js';
import type { World } from '../../../sandbox/world.js';
import { killable, type Kill, type Killable } from '../../faults/killable.js';
import { useAttacherWorld, type AttacherWorld } from './fixture.js';
import type { KcmPlayer } from './kcm-player.js';

let world: World;
let kcm: KcmPlayer;
let fullPass: AttacherWorld['fullPass'];
useAttacherWorld((started) => ({ world, kcm, fullPass } = started));

const INVOCATION_MS = 60_000;
/** The dead invocation's lease: its own end plus the default 15 s margin. */
const LEASE_MS = INVOCATION_MS + 15_000;

/** Ports that die at AttachVolume: `afterEffect` says whether EC2 received it first. */
function diesAtAttach(afterEffect: boolean): { wrap: (ports: Ports) => Ports; dying: () => Killable } {
  // Read by the killable ports at every call: set to the attach's own number as it is made.
  const kill: Kill = { atCall: Number.POSITIVE_INFINITY, afterEffect };
  let dying: Killable | undefined;
  const wrap = (ports: Ports): Ports => {
    const killed = killable(ports, kill);
    dying = killed;
    const inner = killed.ports.blockStorage;
    const blockStorage = Object.assign(Object.create(inner) as Ports['blockStorage'], {
      attach: (request: Parameters<Ports['blockStorage']['attach']>[0]) => {
        kill.atCall = killed.calls() + 1;
        return inner.attach(request);
      },
    });
    return { ...killed.ports, blockStorage };
  };
  return { wrap, dying: () => dying! };
}

const statusWrites = () => world.kube.requests().filter((r) => r.resource === 'volumeattachments' && r.subresource === 'status');
/** EC2 finishes the attach it held in `attaching`. */
const unstick = (volumeId: string) => {
  for (const attachment of world.ec2.world.volumes.get(volumeId)!.attachments.values()) attachment.stuck = false;
};
const attachCalls = () => world.ec2.counters().calls.AttachVolume ?? 0;

describe('attacher mode: a Lambda killed mid-attach', () => {
  // The pass after the lease resolves the intent against EC2: an attach EC2 received is then
  // complete; one that never went out is dropped, and the attach is planned by the pass after
  // (the plan resolves an expired operation before anything else may take its lock).
  // An attach EC2 still shows `attaching` is waited for (below the 90 s stuck-attach limit), not sent again.
  it.each([
    { when: 'after EC2 accepted AttachVolume', afterEffect: true, attaching: false, passesAfterLease: 1 },
    { when: 'after AttachVolume, EC2 still attaching after the lease', afterEffect: true, attaching: true, passesAfterLease: 2 },
    { when: 'after the intent, before AttachVolume went out', afterEffect: false, attaching: false, passesAfterLease: 2 },
  ])('killed $when: one AttachVolume in all, the status written once', async ({ afterEffect, attaching, passesAfterLease }) => {
    const volume = await world.createVolume();
    const name = await kcm.attach(volume, 'node-1');
    if (attaching) world.ec2.stickAttach(volume.volumeId);
    const dies = diesAtAttach(afterEffect);
    // The handler never answers (its port calls never come back); its early timeout is caught here.
    world
      .handlers(world.invocation({ wrapPorts: dies.wrap }))
      .scheduled({ pass: 'full' }, lambdaContext(INVOCATION_MS))
      .catch(() => undefined);
    await dies.dying().killed;
    const sent = afterEffect ? 1 : 0;
    expect(attachCalls()).toBe(sent);

    await fullPass(); // the lease still holds: the volume is left alone
    expect([attachCalls(), statusWrites()]).toEqual([sent, []]);

    world.clock.advance(LEASE_MS + 1);
    for (let pass = 1; pass < passesAfterLease; pass++) {
      await fullPass();
      expect([attachCalls(), statusWrites()]).toEqual([sent, []]);
    }
    if (attaching) unstick(volume.volumeId);
    await fullPass();

    expect(attachCalls()).toBe(1);
    expect(statusWrites().map((r) => r.status)).toEqual([200]);
    expect(kcm.va(name)!.status).toMatchObject({ attached: true, attachmentMetadata: { devicePath: '/dev/xvdaa' } });
  });
});
