/** What every action handler receives, and the shape of the action table. */
import type { Params } from '../protocol/form.js';
import type { XmlObject } from '../protocol/xml.js';
import type { World } from '../state/model.js';

export interface ActionContext {
  params: Params;
  world: World;
  /** The settled clock reading for this request. */
  now: number;
}

/** EC2 throttles per category of API: mutating actions and non-mutating (Describe) actions. */
export type ThrottleCategory = 'mutating' | 'nonMutating';

export interface ActionDefinition {
  category: ThrottleCategory;
  handle(context: ActionContext): XmlObject;
}
