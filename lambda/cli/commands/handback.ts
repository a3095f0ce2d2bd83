/**
 * `handback`: control back to the csi-attacher sidecar (docs/eks.md, rollback), and `takeover`:
 * writes on again after a handback, once the shadow's preflight finds nothing EC2 would refuse. Both go through the store's handover record, which every
 * invocation reads before it acts, so they take effect at once, with no redeploy.
 */
import type { Controller } from '../../composition.js';
import { handBack, switchWrites, type HandbackStep } from '../../reconcile/attacher/handback.js';
import { BLOCKS_TAKEOVER } from '../../core/attacher/shadow.js';
import type { Io } from '../io.js';
import { EXIT } from './exit.js';
import { shadowComparison } from './shadow.js';

const iso = (ms: number) => new Date(ms).toISOString();

function describeStep(step: HandbackStep, lease: string): string {
  switch (step.step) {
    case 'writes-off':
      return step.already
        ? `1. writes were already off (since ${iso(step.since)}): every pass only plans`
        : `1. writes off in the store at ${iso(step.since)}: every pass from now on only plans, and none can start acting`;
    case 'waiting': {
      const { passes, operations, until } = step.acting;
      const parts = [
        ...(passes.length > 0 ? [`${passes.length} pass(es) (${passes.map((p) => p.passId).join(', ')})`] : []),
        ...(operations.length > 0
          ? [`${operations.length} operation lease(s) (${operations.map((o) => `${o.kind} ${o.volumeId} on ${o.nodeName}`).join(', ')})`]
          : []),
      ];
      return `2. waiting: ${parts.join(' and ')} may still act, at the latest until ${iso(until)}`;
    }
    case 'quiet':
      return `2. nothing of ours can act any more (${iso(step.at)})`;
    case 'released':
      return `3. released the Lease ${lease} (emptied, as client-go releases it): the sidecar's standby takes it at its next retry, within 5 s`;
    case 'not-released':
      return `3. did not release the Lease ${lease}: ${step.why}`;
  }
}

function attacherOnly(controller: Controller, io: Io): boolean {
  if (controller.config.mode === 'attacher' && controller.ports.handover !== undefined) return true;
  io.err('handback and takeover hand the work of the EBS CSI csi-attacher sidecar back and forth: set OPERATING_MODE=attacher');
  return false;
}

export async function runHandback(controller: Controller, options: { json: boolean }, io: Io): Promise<number> {
  if (!attacherOnly(controller, io)) return EXIT.error;
  const { config, ports, clock } = controller;
  const lease = `${config.sidecarLease.namespace}/${config.sidecarLease.name}`;
  const steps = await handBack({
    handover: ports.handover!,
    store: ports.store,
    ...(config.leaseFence && ports.sidecarLease ? { lease: { lock: ports.sidecarLease, identity: config.leaseFence.identity } } : {}),
    now: () => clock.now(),
    sleep: (ms) => clock.sleep(ms),
    tell: (step) => {
      if (!options.json) io.out(describeStep(step, lease));
    },
  });
  if (options.json) io.out(JSON.stringify({ lease, steps }, null, 2));
  const last = steps.at(-1);
  return last?.step === 'not-released' && last.why.includes('run the handback again') ? EXIT.error : EXIT.converged;
}

/** The shadow's preflight first: rows EC2 would refuse (a dry run refused, a key we may not grant on) or left unanswered stop the takeover unless told otherwise. */
async function preflightAllows(controller: Controller, options: { json: boolean; despitePreflight: boolean }, io: Io): Promise<boolean> {
  const compared = await shadowComparison(controller, io);
  if (compared === undefined) return false;
  const open = compared.shadow.rows.filter((row) => BLOCKS_TAKEOVER.includes(row.verdict));
  if (open.length === 0) return true;
  const lines = open.map(
    (row) => `  ${row.volumeAttachment ?? '-'} ${row.volumeId ?? '-'} on ${row.nodeName ?? '-'}: ${row.verdict}: ${row.detail ?? ''}`,
  );
  if (options.despitePreflight) {
    io.err(`taking over despite ${open.length} preflight row(s) (--despite-preflight):\n${lines.join('\n')}`);
    return true;
  }
  io.err(
    `not taking over: EC2 would refuse, or did not answer, our next call on ${open.length} VolumeAttachment(s) ` +
      `(fix the role's tags or policy, list the volumes' KMS keys in kmsKeyArns, run \`ebs-attach-detach shadow\` again, or pass --despite-preflight):\n${lines.join('\n')}`,
  );
  return false;
}

export async function runTakeover(controller: Controller, options: { json: boolean; despitePreflight: boolean }, io: Io): Promise<number> {
  if (!attacherOnly(controller, io)) return EXIT.error;
  if (!(await preflightAllows(controller, options, io))) return EXIT.error;
  const { state, already } = await switchWrites(controller.ports.handover!, 'on', controller.clock.now(), 'takeover');
  if (options.json) io.out(JSON.stringify({ writes: state.writes, already }, null, 2));
  else
    io.out(
      already
        ? 'writes were already on in the store'
        : `writes on again in the store at ${iso(state.writesChange?.at ?? controller.clock.now())}: passes act from their next start` +
            (controller.config.leaseFence ? "; they take the sidecar's Lease once it lapses (docs/eks.md, Step 2)" : ''),
    );
  return EXIT.converged;
}
