/**
 * The AMIs the local EC2 knows. EC2 refuses RunInstances with an image id it does not know
 * (InvalidAMIID.NotFound) or that is not shaped like one (InvalidAMIID.Malformed).
 */

export interface SandboxImage {
  imageId: string;
  name: string;
  architecture: 'x86_64' | 'arm64';
  ownerId: string;
  rootDeviceName: string;
  creationDate: string;
}

/** An EKS-optimised Amazon Linux 2023 node image; the id every sandbox caller launches. */
export const SANDBOX_IMAGE_ID = 'ami-0a1b2c3d4e5f60718';

export const REGISTERED_IMAGES: readonly SandboxImage[] = [
  {
    imageId: SANDBOX_IMAGE_ID,
    name: 'amazon-eks-node-al2023-x86_64-standard-1.33-v20250601',
    architecture: 'x86_64',
    ownerId: '602401143452',
    rootDeviceName: '/dev/xvda',
    creationDate: '2025-06-01T00:00:00.000Z',
  },
  {
    imageId: 'ami-0f1e2d3c4b5a69788',
    name: 'amazon-eks-node-al2023-arm64-standard-1.33-v20250601',
    architecture: 'arm64',
    ownerId: '602401143452',
    rootDeviceName: '/dev/xvda',
    creationDate: '2025-06-01T00:00:00.000Z',
  },
];
