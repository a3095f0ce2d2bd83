/** The reconcile pass, full and targeted (DESIGN §4). */
export { runFullPass } from './full-pass.js';
export { runTargetedPass } from './targeted-pass.js';
export { budgetFromContext, Deadline } from './deadline.js';
export { groupByTarget, targetKey } from './targets.js';
export * from './types.js';
