/**
 * List and watch, as an informer does (DESIGN §9, Watcher): every object of a kind with the
 * resourceVersion the list was read at, then the changes after a resourceVersion, streamed.
 * Resource versions are opaque strings: a client may hand one back to the server, never compare
 * two. Part of the Cluster port's reads (cluster.ts); `adapters/kubernetes/watch.ts` implements it
 * on client-node's `Watch`.
 */
import type { KubeCsiNode, KubeNode, KubePod, KubePv, KubeVolumeAttachment } from '../core/kube.js';

/** The kinds a watcher follows (their resource names). */
export type WatchedKind = 'pods' | 'nodes' | 'volumeattachments' | 'persistentvolumes' | 'csinodes';

export type WatchedObject = KubePod | KubeNode | KubeVolumeAttachment | KubePv | KubeCsiNode;

/** A list to start watching from: every object, and the resourceVersion the list was read at. */
export interface WatchStart {
  objects: WatchedObject[];
  resourceVersion: string;
}

export type WatchChangeType = 'added' | 'modified' | 'deleted';

/**
 * What a watch stream tells its listener, in the order the API server sent it. After `expired` or
 * `closed` it says nothing more.
 */
export type WatchSignal =
  /** A write; `deleted` carries the object's last state. `resourceVersion` is the write's. */
  | { type: WatchChangeType; object: WatchedObject; resourceVersion: string }
  /** Every change up to `resourceVersion` has been sent: a watch may resume from it. */
  | { type: 'bookmark'; resourceVersion: string }
  /** 410 Gone: the resourceVersion asked for is older than the API server keeps; list again. */
  | { type: 'expired' }
  /** The stream ended: the request's deadline, a dropped connection or another error (`error` says which). */
  | { type: 'closed'; error?: string };

export interface WatchOptions {
  /**
   * Asked of the API server (`timeoutSeconds`): it ends the stream then, with a BOOKMARK 2 s before.
   * client-node cuts a stream that sent nothing for 30 s (real time) and reports it `closed`.
   */
  timeoutSeconds: number;
}

export interface WatchStream {
  /** Ends the stream; the listener hears nothing more, not even `closed`. */
  stop(): void;
}

export interface ClusterWatch {
  /** Every page of `kind`, and the list's resourceVersion. Throws `IncompleteReadError` rather than a short list. */
  listToWatch(kind: WatchedKind): Promise<WatchStart>;
  /**
   * Opens a watch of `kind` for the changes after `resourceVersion`, with bookmarks. Resolves once
   * the stream is open or has already ended; a failure to open is a `closed` signal (or `expired`
   * for a 410), never a rejection.
   */
  watch(kind: WatchedKind, resourceVersion: string, listener: (signal: WatchSignal) => void, options: WatchOptions): Promise<WatchStream>;
}
