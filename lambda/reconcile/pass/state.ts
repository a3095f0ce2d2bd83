/**
 * The state one pass carries from planning through execution to reporting, and its seam to the
 * operating mode. `actual` is kept current as writes succeed, and `observations` as EC2 answers, so
 * later steps decide on what is true now; what the mode keeps lives on the mode's side.
 *
 * The seam between the shared pass and its operating mode (DESIGN §3a): at the same points in every
 * attach, detach, resolve and conflict, the executor hands over to the mode, which alone talks to
 * Kubernetes (controller: node status, our VolumeAttachments, pod events; attacher: kcm's
 * VolumeAttachments, their status and finalizers) and alone keeps what it needs across the pass
 * (controller: the node-status updater, the pairs touched, PV names). The executor never asks which
 * mode it runs in; a pass cannot be made without one (`createPassContext` requires it), as
 * external-attacher's controller cannot run without its Handler.
 */
import type { Action, AttachAction, DetachAction, MultiAttachConflictAction, UnreportAction } from '../../core/actions.js';
import type { ActualState, DesiredState, InstanceId, NodeName, Observations, VolumeId } from '../../core/types.js';
import type { AttachOutcome, SeenInstance } from '../../ports/block-storage.js';
import type { Deadline } from './deadline.js';
import type { ActionResult, ReconcileDeps } from './types.js';

/** What every pass shares, whatever its mode. */
export interface PassState {
  deps: ReconcileDeps;
  deadline: Deadline;
  desired: DesiredState;
  actual: ActualState;
  observations: Observations;
  /** Instances as this pass's verification saw them (block device mappings too) and when, for the attaches that follow. */
  seenInstances: Map<InstanceId, { instance: SeenInstance; at: number }>;
  reportErrors: string[];
}

export interface PassContext extends PassState {
  /** The operating mode's side of this pass: the only way the executor reports, unreports or asks whether a detach may go ahead. */
  mode: PassMode;
  /** The plan again for one volume, on its freshly read record (after a conflicting write). */
  replan(volumeId: VolumeId): Action[];
}

type AttachFailure = Exclude<AttachOutcome, { kind: 'started' | 'already-attached' }>;

/** The mode's side of one pass. */
export interface PassMode {
  /** Right before an attach takes its lock: undefined to go ahead, else why it must not (nothing is asked of EC2). */
  beforeAttach(ctx: PassContext, action: AttachAction): Promise<string | undefined>;
  /** EC2 shows the volume attached and the record says so. */
  attached(ctx: PassContext, action: AttachAction, device: string): Promise<void>;
  attachFailed(ctx: PassContext, action: AttachAction, failure: AttachFailure): Promise<void>;
  /** Before a detach takes its lock: undefined to go ahead, else why it waits (e.g. the node still lists the volume). */
  beforeDetach(ctx: PassContext, action: DetachAction): string | undefined;
  /** After the detach's intent is written, right before DetachVolume: true, or why it must wait after all (a live re-check). */
  confirmDetach(ctx: PassContext, action: DetachAction): Promise<true | string>;
  /** EC2 shows the volume detached and the record says so. */
  detached(ctx: PassContext, action: DetachAction): Promise<void>;
  detachFailed(ctx: PassContext, action: DetachAction, message: string): Promise<void>;
  /** An expired operation was settled against EC2. */
  settled(ctx: PassContext, volumeId: VolumeId, nodeName: NodeName): Promise<void>;
  /** EC2 was asked to change this pair, or corrected our record of it: what the mode reports of it may be out of line. */
  changed(volumeId: VolumeId, nodeName: NodeName): void;
  /** The plan's unreports, before any detach: the volumes leave their node's reported list (one result per action). */
  unreport(ctx: PassContext, actions: readonly UnreportAction[]): Promise<ActionResult[]>;
  /** A Multi-Attach conflict: nothing is attached; whoever waits for the volume is told why. */
  conflict(ctx: PassContext, action: MultiAttachConflictAction): Promise<void>;
  /** After every action of the plan ran (not on dry runs). */
  afterExecute(ctx: PassContext): Promise<void>;
}

/** Makes the mode's side of one pass, once the pass's shared state exists. */
export type ModeFor = (pass: PassState) => PassMode;
