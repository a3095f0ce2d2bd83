/**
 * Observers of the actions EC2 carries out, for the invariant oracle and the kubelet stand-in:
 * `before` sees the world just before an admitted action changes it, `after` once it succeeded.
 * Both run synchronously, so what they read is the world exactly at that call.
 */
import type { Params } from './protocol/form.js';

export interface ActionHook {
  before?(action: string, params: Params, now: number): void;
  after?(action: string, params: Params, now: number): void;
}

export class ActionHooks {
  private readonly hooks = new Set<ActionHook>();

  add(hook: ActionHook): () => void {
    this.hooks.add(hook);
    return () => void this.hooks.delete(hook);
  }

  before(action: string, params: Params, now: number): void {
    for (const hook of this.hooks) hook.before?.(action, params, now);
  }

  after(action: string, params: Params, now: number): void {
    for (const hook of this.hooks) hook.after?.(action, params, now);
  }
}
