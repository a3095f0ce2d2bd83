/** The action table: every EC2 action the local EC2 answers. */
import { attachmentActions } from './attachments.js';
import type { ActionDefinition } from './context.js';
import { imageActions } from './images.js';
import { instanceActions } from './instances.js';
import { tagActions } from './tags.js';
import { volumeActions } from './volumes.js';

export const ACTIONS: ReadonlyMap<string, ActionDefinition> = new Map(
  Object.entries({ ...instanceActions, ...imageActions, ...volumeActions, ...attachmentActions, ...tagActions }),
);
