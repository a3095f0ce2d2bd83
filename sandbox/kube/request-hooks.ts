/**
 * Observers of the API request stream, for the stand-ins of other cluster components and for the
 * invariant oracle: `before` runs just before a request is served (what it changes, the request
 * sees), `after` once its answer is decided, before it is sent. Both run synchronously, in order.
 */
import type { RequestInfo } from './paths.js';

export interface RequestHook {
  before?(info: RequestInfo): void;
  after?(info: RequestInfo, status: number): void;
}

export class RequestHooks {
  private readonly hooks = new Set<RequestHook>();

  add(hook: RequestHook): () => void {
    this.hooks.add(hook);
    return () => void this.hooks.delete(hook);
  }

  before(info: RequestInfo): void {
    for (const hook of this.hooks) hook.before?.(info);
  }

  after(info: RequestInfo, status: number): void {
    for (const hook of this.hooks) hook.after?.(info, status);
  }
}
