/** DescribeImages over the registered AMIs (sandbox/ec2/state/images.ts). */
import { ec2Errors } from '../protocol/errors.js';
import { filters, list } from '../protocol/form.js';
import { itemSet } from '../protocol/xml.js';
import type { SandboxImage } from '../state/images.js';
import type { World } from '../state/model.js';
import type { ActionContext, ActionDefinition } from './context.js';
import { applyFilters } from './query.js';

const IMAGE_ID = /^ami-([0-9a-f]{8}|[0-9a-f]{17})$/;

/** The registered image `imageId`, or EC2's error for a malformed or unknown id. */
export function registeredImage(world: World, imageId: string): SandboxImage {
  if (!IMAGE_ID.test(imageId)) throw ec2Errors.imageMalformed(imageId);
  const image = world.images.get(imageId);
  if (!image) throw ec2Errors.imageNotFound([imageId]);
  return image;
}

const IMAGE_FILTERS = ['image-id', 'name', 'architecture', 'owner-id', 'state'] as const;

function imageField(image: SandboxImage, name: string): string[] {
  const fields: Record<(typeof IMAGE_FILTERS)[number], string> = {
    'image-id': image.imageId,
    name: image.name,
    architecture: image.architecture,
    'owner-id': image.ownerId,
    state: 'available',
  };
  const value = fields[name as (typeof IMAGE_FILTERS)[number]];
  return value === undefined ? [] : [value];
}

function describeImages({ params, world }: ActionContext) {
  const ids = list(params, 'ImageId');
  const unknown = ids.filter((id) => !world.images.has(id));
  if (unknown.length > 0) throw ec2Errors.imageNotFound(unknown);
  const candidates = ids.length > 0 ? ids.map((id) => registeredImage(world, id)) : [...world.images.values()];
  const images = applyFilters(candidates, filters(params), imageField, IMAGE_FILTERS);
  return {
    imagesSet: itemSet(
      images.map((image) => ({
        imageId: image.imageId,
        imageLocation: `amazon/${image.name}`,
        imageState: 'available',
        imageOwnerId: image.ownerId,
        creationDate: image.creationDate,
        isPublic: true,
        architecture: image.architecture,
        imageType: 'machine',
        name: image.name,
        rootDeviceType: 'ebs',
        rootDeviceName: image.rootDeviceName,
        virtualizationType: 'hvm',
        hypervisor: 'xen',
        enaSupport: true,
      })),
    ),
  };
}

export const imageActions: Record<string, ActionDefinition> = {
  DescribeImages: { category: 'nonMutating', handle: describeImages },
};
