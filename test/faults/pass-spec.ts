/** One pass a step runs: full or targeted, and maybe killed at a call (killable.ts). */
import type { Target } from '../../lambda/reconcile/pass/types.js';
import type { Kill } from './killable.js';

export interface PassSpec {
  target?: Target;
  kill?: Kill;
}
