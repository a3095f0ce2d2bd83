/**
 * Where the stack finds the handlers. The events that start a pass are owned by the handlers'
 * side (lambda/handlers/contracts.ts) and imported from there.
 */
import path from 'node:path';

/** Repository root: bundling resolves entries and the lock file from here, whatever the cwd. */
export const REPO_ROOT = path.resolve(import.meta.dirname, '..');

/** Handler entry files (each exports `handler`), relative to the repository root. */
export const HANDLER_ENTRIES = {
  scheduled: 'lambda/handlers/scheduled.ts',
  clusterEvent: 'lambda/handlers/cluster-event.ts',
  ec2Event: 'lambda/handlers/ec2-event.ts',
  watcher: 'lambda/handlers/watcher.ts',
} as const;
