/** CreateTags and DeleteTags on volumes and instances. */
import { ec2Errors } from '../protocol/errors.js';
import { list, tags, type Params } from '../protocol/form.js';
import type { World } from '../state/model.js';
import type { ActionContext, ActionDefinition } from './context.js';

function targetsOf(params: Params, world: World) {
  const resourceIds = list(params, 'ResourceId');
  if (resourceIds.length === 0) throw ec2Errors.missingParameter('ResourceId');
  return resourceIds.map((id) => {
    const target = id.startsWith('vol-') ? world.volumes.get(id) : world.instances.get(id);
    if (!target) throw id.startsWith('vol-') ? ec2Errors.volumeNotFound([id]) : ec2Errors.instanceNotFound([id]);
    return target;
  });
}

function createTags({ params, world }: ActionContext) {
  const newTags = tags(params);
  for (const target of targetsOf(params, world)) {
    for (const tag of newTags) target.tags.set(tag.key, tag.value);
  }
  return { return: true };
}

/** A tag named without a value goes whatever its value; with one, only when the value matches (EC2's DeleteTags). */
function deleteTags({ params, world }: ActionContext) {
  const named = tagsToDelete(params);
  for (const target of targetsOf(params, world)) {
    for (const tag of named) if (tag.value === undefined || target.tags.get(tag.key) === tag.value) target.tags.delete(tag.key);
  }
  return { return: true };
}

function tagsToDelete(params: Params): { key: string; value?: string }[] {
  const keys = [...params.keys()].filter((key) => /^Tag\.\d+\.Key$/.test(key));
  return keys.map((key) => {
    const value = params.get(key.replace(/Key$/, 'Value'));
    return { key: params.get(key) as string, ...(value === undefined ? {} : { value }) };
  });
}

export const tagActions: Record<string, ActionDefinition> = {
  CreateTags: { category: 'mutating', handle: createTags },
  DeleteTags: { category: 'mutating', handle: deleteTags },
};
