/**
 * An operation and its lease (DESIGN §5): how long a lease taken now lasts, whether it still holds,
 * and whether a (volume, node) pair has an operation in flight.
 */
import type { PlanConfig } from './config.js';
import type { NodeName, Operation, VolumeRecord } from './types.js';

/**
 * How long a lease taken at `now` lasts: until the holding invocation's end plus the margin.
 *
 * Why that is enough: an invocation cannot outlive its function timeout — Lambda stops it there,
 * and nothing it started can call EC2 or write the store afterwards. So once its end plus the
 * margin has passed, whatever it did is already visible in EC2, and the next pass can resolve the
 * operation against DescribeVolumes. The margin covers the two things that are not instantaneous:
 * clocks of different execution environments (kept within milliseconds by the Amazon Time Sync
 * Service) and a request on the wire at the end (the EC2 client's request timeout is 10 s). A killed
 * invocation's volume therefore waits at most its function's timeout plus the margin, not a fixed 15
 * minutes; a short targeted function recovers sooner.
 */
export function leaseMsFor(invocationEndsAt: number, now: number, config: Pick<PlanConfig, 'leaseMarginMs'>): number {
  return Math.max(0, invocationEndsAt - now) + config.leaseMarginMs;
}

/** The operation's lease has not run out: its invocation may still act. */
export const isLive = (op: Operation, now: number): boolean => now < op.leaseExpiresAt;

/** An operation (live or expired, not yet resolved) is on this (volume, node) pair: it settles the pair first. */
export function hasOperationOn(record: Pick<VolumeRecord, 'operations'> | undefined, nodeName: NodeName): boolean {
  return Object.values(record?.operations ?? {}).some((op) => op.nodeName === nodeName);
}
