/** CreateTags on volumes and instances. */
import { ec2Errors } from '../protocol/errors.js';
import { list, tags } from '../protocol/form.js';
import type { ActionContext, ActionDefinition } from './context.js';

function createTags({ params, world }: ActionContext) {
  const resourceIds = list(params, 'ResourceId');
  if (resourceIds.length === 0) throw ec2Errors.missingParameter('ResourceId');
  const newTags = tags(params);
  const targets = resourceIds.map((id) => {
    const target = id.startsWith('vol-') ? world.volumes.get(id) : world.instances.get(id);
    if (!target) throw id.startsWith('vol-') ? ec2Errors.volumeNotFound([id]) : ec2Errors.instanceNotFound([id]);
    return target;
  });
  for (const target of targets) {
    for (const tag of newTags) target.tags.set(tag.key, tag.value);
  }
  return { return: true };
}

export const tagActions: Record<string, ActionDefinition> = {
  CreateTags: { category: 'mutating', handle: createTags },
};
