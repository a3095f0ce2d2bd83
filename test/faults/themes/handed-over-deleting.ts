/**
 * A handover from the csi-attacher sidecar (attacher mode): the sidecar attached what kcm asked
 * for and stopped before our first pass; meanwhile some pods went, so kcm is deleting their
 * VolumeAttachments, which carry the attacher finalizer (the sidecar's is ours) while EC2 still
 * holds the volumes. Our first pass cannot write a record (every write of it conflicts, as when
 * other writers keep changing the items: writeRecord gives up after its attempts): a deleting
 * object with our finalizer, no record of ours, and the volume still in EC2.
 * The finalizer must stay until EC2 has let the volume go (A3); the next pass adopts and detaches.
 */
import type { Ports } from '../../../lambda/composition.js';
import { MemoryLease, SidecarElector } from '../../../sandbox/lease-election.js';
import { createSidecar } from '../../../sandbox/sidecar/sidecar.js';
import type { KubeVolumeAttachment } from '../../../lambda/core/kube.js';
import { applyChange } from '../cluster.js';
import { CALM_STEP, FULL_PASS, type ScriptedStep, type Theme, type ThemeContext } from './theme.js';

/** Rounds the sidecar gets to attach every object (EC2 takes 1 s an attach here). */
const SIDECAR_ROUNDS = 6;
/** Pods that go before our first pass. */
const PODS_GONE = 2;

const allAttached = (ctx: ThemeContext) =>
  (ctx.world.kube.list('VolumeAttachment') as KubeVolumeAttachment[]).every((va) => va.status?.attached === true);

/** The sidecar leads (no Lease to share: it is alone), attaches kcm's objects, and stops; some pods go. */
async function sidecarAttachesThenPodsGo(ctx: ThemeContext): Promise<string> {
  const { world } = ctx;
  const sidecar = createSidecar({
    kube: world.kube,
    ec2: world.ec2Client,
    elector: new SidecarElector(new MemoryLease(), 'ebs-csi-controller-0', () => world.clock.now()),
  });
  for (let round = 0; round < SIDECAR_ROUNDS && !allAttached(ctx); round++) {
    await sidecar.step();
    world.clock.advance(1_000);
  }
  const gone: typeof ctx.cluster.pods = [];
  for (let i = 0; i < PODS_GONE && ctx.cluster.pods.length > gone.length; i++)
    gone.push(ctx.random.pick(ctx.cluster.pods.filter((pod) => !gone.includes(pod))));
  for (const pod of gone) applyChange(world, ctx.cluster, ctx.random, { kind: 'delete', pod: pod.name });
  return `the sidecar attached what kcm asked for and stopped; pods ${gone.map((p) => p.name).join(', ')} went`;
}

/** The store's record writes all conflict (its reads still answer): the pass records nothing. */
function everyWriteConflicts(ports: Ports): Ports {
  const store = ports.store;
  return {
    ...ports,
    store: new Proxy(store, {
      get: (target, key) => {
        if (key === 'put') return () => Promise.resolve({ ok: false, reason: 'conflict' });
        const value: unknown = Reflect.get(target, key);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    }),
  };
}

function step(n: number): ScriptedStep | undefined {
  if (n === 1)
    return { changes: [{ kind: 'none' }], faults: [], passes: [], advance: 2_000, restart: undefined, prepare: sidecarAttachesThenPodsGo };
  if (n === 2)
    return {
      changes: [{ kind: 'none' }],
      faults: [],
      passes: [FULL_PASS],
      wrapPorts: everyWriteConflicts,
      advance: 15_000,
      restart: undefined,
    };
  // A full pass with nothing failing adopts what the sidecar left, within A4's bound; then the world goes on as drawn.
  return n === 3 ? CALM_STEP : undefined;
}

export const HANDED_OVER_DELETING: Theme = { name: 'handed-over-deleting', step };
