/**
 * What a pass tells Kubernetes, the half of the operating mode the shared executor calls: at the
 * same points in every attach, detach and resolve, each mode writes its own objects (controller:
 * node status, our VolumeAttachments and pod events; attacher: kcm's VolumeAttachments, their
 * status and finalizers). The executor never asks which mode it runs in.
 */
import type { AttachAction, DetachAction } from '../../core/actions.js';
import type { NodeName, VolumeId } from '../../core/types.js';
import type { AttachOutcome } from '../../ports/block-storage.js';
import type { PassContext } from './context.js';

export type AttachFailure = Exclude<AttachOutcome, { kind: 'started' | 'already-attached' }>;

export interface ModeReports {
  /** Right before an attach takes its lock: undefined to go ahead, else why it must not (nothing is asked of EC2). */
  beforeAttach(ctx: PassContext, action: AttachAction): Promise<string | undefined>;
  /** EC2 shows the volume attached and the record says so. */
  attached(ctx: PassContext, action: AttachAction, device: string): Promise<void>;
  attachFailed(ctx: PassContext, action: AttachAction, failure: AttachFailure): Promise<void>;
  /** EC2 shows the volume detached and the record says so. */
  detached(ctx: PassContext, action: DetachAction): Promise<void>;
  detachFailed(ctx: PassContext, action: DetachAction, message: string): Promise<void>;
  /** An expired operation was settled against EC2. */
  settled(ctx: PassContext, volumeId: VolumeId, nodeName: NodeName): Promise<void>;
  /** After every action of the plan ran (not on dry runs). */
  afterExecute(ctx: PassContext): Promise<void>;
}
