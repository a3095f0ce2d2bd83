/**
 * The plan (DESIGN §4 step 4): a pure function of desired state, actual state, EC2 observations,
 * the time and the tunables. Order of execution: resolves of expired operations, then
 * unreport/detach pairs (a rescheduled pod's volume leaves the old node first), then attaches,
 * then Multi-Attach conflicts. Every action carries its reason; what waits is in `deferred`.
 */
import type { Action, Plan, ResolveAction } from './actions.js';
import type { PlanConfig } from './config.js';
import { inScope, massDetachGuard, massDetachLimit } from './guards.js';
import { ec2ShowsAttachment } from './observed.js';
import { planAttaches } from './plan-attach.js';
import { createContext, sortedRecords, type PlanContext } from './plan-context.js';
import { planDetaches } from './plan-detach.js';
import type { ActualState, DesiredState, Observations } from './types.js';

function planResolves(ctx: PlanContext): ResolveAction[] {
  const resolves: ResolveAction[] = [];
  for (const record of sortedRecords(ctx.actual)) {
    for (const key of Object.keys(record.operations).sort()) {
      const operation = record.operations[key]!;
      if (operation.leaseExpiresAt > ctx.now || !inScope(ctx.desired, record.volumeId, operation.nodeName)) continue;
      resolves.push({
        kind: 'resolve',
        volumeId: record.volumeId,
        uniqueName: record.uniqueName,
        nodeName: operation.nodeName,
        operation,
        reason: `${operation.kind} operation ${operation.id} lost its lease at ${new Date(operation.leaseExpiresAt).toISOString()}: ask EC2 what happened`,
      });
    }
  }
  return resolves;
}

/** Attachments the mass-detach guard measures against: in scope, live, and past attaching. */
function attachedCount(ctx: PlanContext): number {
  let count = 0;
  for (const record of ctx.actual.values()) {
    const observation = ctx.observations.volumes?.get(record.volumeId);
    for (const attachment of Object.values(record.attachments)) {
      if (
        attachment.state !== 'attaching' &&
        ec2ShowsAttachment(attachment, observation) &&
        inScope(ctx.desired, record.volumeId, attachment.nodeName)
      )
        count++;
    }
  }
  return count;
}

export function plan(desired: DesiredState, actual: ActualState, observations: Observations, now: number, config: PlanConfig): Plan {
  const ctx = createContext(desired, actual, observations, now, config);
  const resolves = planResolves(ctx);
  const candidates = planDetaches(ctx);
  const { attaches, conflicts } = planAttaches(ctx);
  const attached = attachedCount(ctx);
  const { kept, heldBack } = massDetachGuard(
    candidates.map((c) => c.detach),
    attached,
    config.massDetachGuard,
  );
  const actions: Action[] = [...resolves];
  for (const { unreport, detach } of candidates) {
    if (!kept.includes(detach)) continue;
    if (unreport) actions.push(unreport);
    actions.push(detach);
  }
  actions.push(...attaches, ...conflicts);
  const limit = massDetachLimit(attached, config.massDetachGuard);
  return {
    actions,
    heldBack,
    deferred: ctx.deferred,
    detachRequests: ctx.detachRequests,
    ...(limit === undefined ? {} : { massDetachLimit: limit }),
  };
}
