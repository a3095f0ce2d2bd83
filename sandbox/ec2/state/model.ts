/** The local EC2's state: instances, volumes and their attachments, and the knobs that shape them. */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import { REGISTERED_IMAGES, type SandboxImage } from './images.js';

export type InstanceStateName = 'pending' | 'running' | 'stopping' | 'stopped' | 'shutting-down' | 'terminated';

/** EC2's numeric state codes (low byte of `instanceState.code`). */
export const INSTANCE_STATE_CODES: Record<InstanceStateName, number> = {
  pending: 0,
  running: 16,
  'shutting-down': 32,
  terminated: 48,
  stopping: 64,
  stopped: 80,
};

export interface SandboxAttachment {
  volumeId: string;
  instanceId: string;
  device: string;
  attachTime: number;
  deleteOnTermination: boolean;
  /** `attach` moves attaching → attached; `detach` moves detaching → gone (or `busy` when stuck). */
  phase: 'attach' | 'detach';
  /** When the current phase began (epoch ms). */
  since: number;
  /** Fault injection: the phase never completes (attach stays `attaching`, detach shows `busy`). */
  stuck: boolean;
}

export interface SandboxVolume {
  volumeId: string;
  zone: string;
  size: number;
  volumeType: string;
  iops?: number;
  throughput?: number;
  encrypted: boolean;
  /** The KMS key ARN of an encrypted volume (EC2's default `aws/ebs` key when none was named). */
  kmsKeyId?: string;
  multiAttachEnabled: boolean;
  createTime: number;
  tags: Map<string, string>;
  /** By instance id; more than one only for Multi-Attach volumes. */
  attachments: Map<string, SandboxAttachment>;
}

export interface SandboxInstance {
  instanceId: string;
  reservationId: string;
  imageId: string;
  instanceType: string;
  zone: string;
  state: InstanceStateName;
  /** When `state` was entered (epoch ms). */
  since: number;
  launchTime: number;
  rootDeviceName: string;
  rootVolumeId: string;
  networkInterfaces: number;
  tags: Map<string, string>;
}

export interface Delays {
  attachMs: number;
  detachMs: number;
  instanceStartMs: number;
  instanceStopMs: number;
  instanceTerminateMs: number;
  /** How long a terminated instance stays describable (EC2: about an hour). */
  terminatedRetentionMs: number;
}

export interface ModelConfig {
  delays: Delays;
  /** Nitro instances share this many slots among network interfaces and EBS volumes (root included). */
  nitroAttachmentSlots: number;
  /** Xen instances: EBS volumes per instance. */
  xenVolumeLimit: number;
  /** Network interfaces each new instance holds (they use Nitro attachment slots). */
  networkInterfacesPerInstance: number;
  /** io1/io2 Multi-Attach: at most this many Nitro instances. */
  multiAttachMaxInstances: number;
  defaultZone: string;
  ownerId: string;
  /** Describe NotFound errors name every requested id, not only the unknown ones (another EC2 implementation's habit). */
  notFoundNamesEveryId: boolean;
}

const DEFAULT_DELAYS: Delays = {
  attachMs: 2_000,
  detachMs: 2_000,
  instanceStartMs: 5_000,
  instanceStopMs: 5_000,
  instanceTerminateMs: 5_000,
  terminatedRetentionMs: 60 * 60_000,
};

export const DEFAULT_MODEL_CONFIG: ModelConfig = {
  delays: DEFAULT_DELAYS,
  nitroAttachmentSlots: 28,
  xenVolumeLimit: 40,
  networkInterfacesPerInstance: 1,
  multiAttachMaxInstances: 16,
  defaultZone: 'us-east-1a',
  ownerId: '123456789012',
  notFoundNamesEveryId: false,
};

/** Previous-generation (Xen) families; everything else is treated as Nitro. */
const XEN_FAMILY = /^(t1|t2|m1|m2|m3|m4|c1|c3|c4|r3|r4|i2|i3|d2|x1|x1e|g2|g3|p2|p3|f1|h1)\./;

export function isNitro(instanceType: string): boolean {
  return !XEN_FAMILY.test(instanceType);
}

export function newId(prefix: 'vol' | 'i' | 'r'): string {
  return `${prefix}-${randomBytes(9).toString('hex').slice(0, 17)}`;
}

/** Fault flags that shape future attachments: a volume id, or `*` for every volume. */
export interface StickyFaults {
  attach: Set<string>;
  detach: Set<string>;
}

export class World {
  readonly instances = new Map<string, SandboxInstance>();
  readonly volumes = new Map<string, SandboxVolume>();
  /** Idempotency of CreateVolume / RunInstances: ClientToken → the ids it created. */
  readonly clientTokens = new Map<string, string[]>();
  readonly sticky: StickyFaults = { attach: new Set(), detach: new Set() };
  /** Per-instance override of the attachment limit (slots on Nitro, volumes on Xen). */
  readonly attachmentLimits = new Map<string, number>();
  /** AMIs RunInstances accepts and DescribeImages lists, by id. */
  readonly images = new Map<string, SandboxImage>(REGISTERED_IMAGES.map((image) => [image.imageId, image]));

  constructor(
    readonly config: ModelConfig,
    readonly clock: Clock,
  ) {}
}
