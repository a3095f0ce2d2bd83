/**
 * Item schema of the volume table (partition key `pk` (S), no sort key) and its mapping to
 * `VolumeRecord`. Every item read is validated; one that does not fit is reported, never trusted.
 *
 * Volume item, one per EBS volume:
 *   pk            S     `volume#<volumeId>`
 *   volumeId      S     e.g. `vol-0123456789abcdef0`
 *   uniqueName    S     `kubernetes.io/csi/ebs.csi.aws.com^<volumeId>`
 *   accessModes   L<S>  the PV's access modes
 *   multiAttach   BOOL  false: exclusive (RWO/RWOP only)
 *   attachments   M     nodeName → M { nodeName S, instanceId S, state S (attaching|attached|detaching|uncertain),
 *                       device S?, mounted BOOL, reported BOOL, detachRequestedAt N?, listingClaims M? { passId → N } (the previous version's listingUntil N? is read as one claim), since N }
 *   operations    M     lock key (`volume`, or `node:<nodeName>` if multiAttach) → M { id S, kind S (attach|detach),
 *                       nodeName S, instanceId S, device S?, ec2Force BOOL?, startedAt N, leaseExpiresAt N,
 *                       prior M? { state S, device S? } }
 *   backoff       M     operation key (`<kind>:<nodeName>`) → M { failures N, notBefore N, lastError S }
 *   version       N     ≥ 1; the compare-and-swap token, + 1 on every write
 * Tombstone, left by `remove` so versions never restart (a stale writer's version cannot match again):
 *   pk S, version N, removedAt N (epoch ms), ttl N (epoch s; DynamoDB TTL deletes it later)
 * Controller state, one item:
 *   pk S `controller#state`, lastVerifiedAt N?, seededAt N?, completeAt N?, slice N?, takeover M? { startedAt N, through S?, holder M? { passId S, until N } }, version N
 * Device reservations, one item per EC2 instance (devices.ts):
 *   pk S `instance#<instanceId>`, and per reserved name an attribute `device:<name>` →
 *   M { volumeId S, operationId S, expiresAt N }
 * Mass-detach window, one item (mass-detach-window.ts):
 *   pk S `guard#mass-detach`, claims L<M { at N, count N }>, version N
 * Handover from the csi-attacher sidecar, one item (handover.ts): writes flag, the sidecar's Lease
 *   as first seen, whether we held it, and the passes that may still act
 * EC2 rate budget, one item per region and mutating action (rate-budget.ts):
 *   pk S `budget#ec2#<region>#<action>`, tat N (GCRA's theoretical arrival time)
 * All times are epoch milliseconds except `ttl`.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { z } from 'zod';
import type { ControllerState } from '../../ports/volume-store.js';
import { lockKey, type VolumeId, type VolumeRecord } from '../../core/types.js';

export type Item = Record<string, AttributeValue>;

const VOLUME_PREFIX = 'volume#';
export const CONTROLLER_STATE_KEY = 'controller#state';
export const INSTANCE_PREFIX = 'instance#';
export const BUDGET_PREFIX = 'budget#';
export const MASS_DETACH_WINDOW_KEY = 'guard#mass-detach';
export const HANDOVER_KEY = 'handover#csi-attacher';
/** The watchers' lease and their checkpoints (watcher-store.ts). */
export const WATCHER_LEASE_KEY = 'watcher#lease';
export const WATCHER_CHECKPOINT_PREFIX = 'watcher#checkpoint#';
/** When a watcher last gave up on a target (the next full pass is then complete). */
export const WATCHER_GAVE_UP_KEY = 'watcher#gave-up';
export const volumeKey = (volumeId: VolumeId): Item => ({ pk: { S: `${VOLUME_PREFIX}${volumeId}` } });

const time = z.number().int().nonnegative();
const attachmentState = z.enum(['attaching', 'attached', 'detaching', 'uncertain']);

/** The lister named for the one claim an item of the previous version holds (its `listingUntil`). */
export const LEGACY_LISTER = 'listing-until';

const attachmentSchema = z
  .object({
    nodeName: z.string().min(1),
    instanceId: z.string().min(1),
    state: attachmentState,
    device: z.string().optional(),
    mounted: z.boolean(),
    reported: z.boolean(),
    detachRequestedAt: time.optional(),
    listingClaims: z.record(z.string().min(1), time).optional(),
    /** Written by the previous version (one claim per attachment): read as a claim while both versions run. */
    listingUntil: time.optional(),
    since: time,
  })
  .transform(({ listingUntil, ...attachment }) =>
    listingUntil === undefined
      ? attachment
      : { ...attachment, listingClaims: { [LEGACY_LISTER]: listingUntil, ...attachment.listingClaims } },
  );

const operationSchema = z.object({
  id: z.string().min(1),
  kind: z.enum(['attach', 'detach']),
  nodeName: z.string().min(1),
  instanceId: z.string().min(1),
  device: z.string().optional(),
  ec2Force: z.boolean().optional(),
  startedAt: time,
  leaseExpiresAt: time,
  prior: z.object({ state: attachmentState, device: z.string().optional() }).optional(),
});

const backoffSchema = z.object({
  failures: z.number().int().positive(),
  notBefore: time,
  lastError: z.string(),
  untilDetachFrom: z.object({ instanceId: z.string().min(1), attached: z.number().int().nonnegative() }).optional(),
});

/** A volume record, with the keys of its maps checked against their contents. */
export const volumeRecordSchema = z
  .object({
    volumeId: z.string().min(1),
    uniqueName: z.string().min(1),
    accessModes: z.array(z.enum(['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'])),
    multiAttach: z.boolean(),
    attachments: z.record(z.string(), attachmentSchema),
    operations: z.record(z.string(), operationSchema),
    backoff: z.record(z.string(), backoffSchema),
    version: z.number().int().nonnegative(),
  })
  .superRefine((record, ctx) => {
    for (const [node, attachment] of Object.entries(record.attachments)) {
      if (attachment.nodeName !== node)
        ctx.addIssue({ code: 'custom', path: ['attachments', node], message: `holds node ${attachment.nodeName}` });
    }
    for (const [key, op] of Object.entries(record.operations)) {
      const expected = lockKey(record, op.nodeName);
      if (key !== expected) ctx.addIssue({ code: 'custom', path: ['operations', key], message: `should be keyed ${expected}` });
    }
  });

const tombstoneSchema = z.object({ pk: z.string(), version: z.number().int().positive(), removedAt: time });

const controllerStateSchema = z.object({
  pk: z.literal(CONTROLLER_STATE_KEY),
  lastVerifiedAt: time.optional(),
  seededAt: time.optional(),
  completeAt: time.optional(),
  slice: z.number().int().nonnegative().optional(),
  takeover: z
    .object({
      startedAt: time,
      through: z.string().min(1).optional(),
      holder: z.object({ passId: z.string().min(1), until: time }).optional(),
    })
    .optional(),
  version: z.number().int().positive(),
});

export type ParsedItem =
  | { kind: 'volume'; record: VolumeRecord }
  | { kind: 'tombstone' }
  | { kind: 'controller' }
  | { kind: 'coordination' }
  | { kind: 'corrupt'; key: string; problem: string };

/** One line naming every problem: `path: message; …`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.') || '(item)'}: ${issue.message}`).join('; ');
}

/** The item's key as text, for reports about items that are not what we expect. */
export function itemKey(item: Item): string {
  const pk = item.pk;
  return pk?.S ?? (pk ? JSON.stringify(pk) : '(no pk)');
}

function unmarshallSafely(item: Item): { native: Record<string, unknown> } | { problem: string } {
  try {
    return { native: unmarshall(item) };
  } catch (error) {
    return { problem: `unreadable attribute: ${(error as Error).message}` };
  }
}

/** Classifies and validates one raw item; never throws. */
export function parseItem(item: Item): ParsedItem {
  const key = itemKey(item);
  if (key === CONTROLLER_STATE_KEY) return { kind: 'controller' };
  if (
    key.startsWith(INSTANCE_PREFIX) ||
    key.startsWith(BUDGET_PREFIX) ||
    key === MASS_DETACH_WINDOW_KEY ||
    key === HANDOVER_KEY ||
    key === WATCHER_LEASE_KEY ||
    key === WATCHER_GAVE_UP_KEY ||
    key.startsWith(WATCHER_CHECKPOINT_PREFIX)
  )
    return { kind: 'coordination' };
  if (!key.startsWith(VOLUME_PREFIX)) return { kind: 'corrupt', key, problem: `not a volume item (pk must start with ${VOLUME_PREFIX})` };
  const read = unmarshallSafely(item);
  if ('problem' in read) return { kind: 'corrupt', key, ...read };
  const schema = 'removedAt' in read.native ? tombstoneSchema : volumeRecordSchema;
  const parsed = schema.safeParse(read.native);
  if (!parsed.success) return { kind: 'corrupt', key, problem: describeIssues(parsed.error) };
  if (!('volumeId' in parsed.data)) return { kind: 'tombstone' };
  const record = parsed.data;
  if (key !== `${VOLUME_PREFIX}${record.volumeId}`)
    return { kind: 'corrupt', key, problem: `volumeId ${record.volumeId} does not match the key` };
  if (record.version < 1) return { kind: 'corrupt', key, problem: `version: a stored version is at least 1, got ${record.version}` };
  return { kind: 'volume', record };
}

/** The stored form of a record at `version`. Only known fields are written. */
export function toItem(record: VolumeRecord, version: number): Item {
  const { volumeId, uniqueName, accessModes, multiAttach, attachments, operations, backoff } = record;
  return marshall(
    { pk: `${VOLUME_PREFIX}${volumeId}`, volumeId, uniqueName, accessModes, multiAttach, attachments, operations, backoff, version },
    { removeUndefinedValues: true },
  );
}

export function tombstoneItem(volumeId: VolumeId, version: number, removedAt: number, ttlSeconds: number): Item {
  return marshall({ pk: `${VOLUME_PREFIX}${volumeId}`, version, removedAt, ttl: Math.floor(removedAt / 1000) + ttlSeconds });
}

export function parseControllerState(item: Item): ControllerState | { problem: string } {
  const read = unmarshallSafely(item);
  if ('problem' in read) return read;
  const parsed = controllerStateSchema.safeParse(read.native);
  if (!parsed.success) return { problem: describeIssues(parsed.error) };
  const { pk: _pk, ...state } = parsed.data;
  return state;
}

export function controllerStateItem(state: ControllerState, version: number): Item {
  return marshall(
    {
      pk: CONTROLLER_STATE_KEY,
      lastVerifiedAt: state.lastVerifiedAt,
      seededAt: state.seededAt,
      completeAt: state.completeAt,
      slice: state.slice,
      takeover: state.takeover,
      version,
    },
    { removeUndefinedValues: true },
  );
}
