/**
 * The Lease taken over between a pass's start and its calls (attacher mode, lease fence on, a
 * csi-attacher sidecar standing by): once our pass has taken or renewed the sidecar's Lease, an
 * operator deletes it by hand (docs/eks.md's old rollback), the sidecar's standby creates a fresh
 * one at once, and the pass goes on 6 s later (a slow API, a pause). No AttachVolume or
 * DetachVolume of that pass may reach EC2 any more (A6): the fence reads the Lease again before
 * each call once its last sight is older than the re-read bound. The theme first lets the sidecar
 * hold the Lease (it led once and stopped), so that our passes take it over as the guide does.
 */
import type { WorldFence } from '../rig.js';
import { CALM_STEP, FULL_PASS, type ArmedEvent, type ScriptedStep, type Theme, type ThemeContext } from './theme.js';

/** The EBS CSI controller pod whose csi-attacher stands by. */
const SIDECAR = 'ebs-csi-controller-6f7d9c8b5-x2k4p';
/** Its --leader-election-lease-duration. */
const SIDECAR_LEASE_SECONDS = 15;
/** Past the fence's re-read bound (5 s): the pass's sight of the Lease is stale by its next call. */
const PAUSE_MS = 6_000;

/** metav1.MicroTime as the API server writes it: six fraction digits. */
const microTime = (ms: number) => new Date(ms).toISOString().replace('Z', '000Z');

function fenceOf(ctx: ThemeContext): WorldFence {
  if (ctx.world.fence === undefined) throw new Error('lease-taken-mid-pass needs a world with the lease fence on');
  return ctx.world.fence;
}

/** The sidecar holds a fresh Lease (it leads now), with one more transition than the one it replaces. */
function sidecarLeads(ctx: ThemeContext, transitions: number): void {
  const { lease } = fenceOf(ctx);
  const at = microTime(ctx.world.clock.now());
  ctx.world.kube.components.create('Lease', lease.namespace, {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: lease.name, namespace: lease.namespace },
    spec: {
      holderIdentity: SIDECAR,
      leaseDurationSeconds: SIDECAR_LEASE_SECONDS,
      acquireTime: at,
      renewTime: at,
      leaseTransitions: transitions,
    },
  });
}

/** The sidecar led once and stopped: our passes see its Lease, and take it once it has gone unrenewed for its duration. */
function sidecarLedOnce(ctx: ThemeContext): ScriptedStep {
  sidecarLeads(ctx, 0);
  return { ...CALM_STEP, advance: (SIDECAR_LEASE_SECONDS + 1) * 1000 };
}

/** Right after our pass's Lease write succeeded: deleted by hand, taken by the standby, then a pause. */
function takenAfterOurWrite(ctx: ThemeContext): ArmedEvent {
  const { lease, ours } = fenceOf(ctx);
  let taken: string | undefined;
  const stop = ctx.world.kube.onRequest({
    after: (info, status) => {
      if (taken !== undefined || info.resource !== 'leases' || info.name !== lease.name || status >= 300) return;
      if (!['create', 'update', 'patch'].includes(info.verb)) return;
      const held = ctx.world.kube.get('Lease', lease.namespace, lease.name) as {
        spec?: { holderIdentity?: string; leaseTransitions?: number };
      };
      if (held.spec?.holderIdentity !== ours) return;
      ctx.world.kube.components.delete('Lease', lease.namespace, lease.name);
      sidecarLeads(ctx, (held.spec.leaseTransitions ?? 0) + 1);
      ctx.world.clock.advance(PAUSE_MS);
      taken = `the sidecar took the Lease after our ${info.verb} of it, then ${PAUSE_MS / 1000} s passed`;
    },
  });
  return { stop, note: () => taken ?? 'the Lease was not written by us this step' };
}

function step(n: number, ctx: ThemeContext): ScriptedStep | undefined {
  if (n === 1) return sidecarLedOnce(ctx);
  // Our passes take the Lease, attach what kcm asks for, and report it; the kubelets mount.
  if (n <= 3) return CALM_STEP;
  // The cluster changes as drawn; one pass, nothing in flight when the Lease goes.
  return { passes: [FULL_PASS], restart: undefined, arm: takenAfterOurWrite };
}

export const LEASE_TAKEN_MID_PASS: Theme = {
  name: 'lease-taken-mid-pass',
  stack: { sidecar: true, env: { LEASE_FENCE: 'on' } },
  step,
};
