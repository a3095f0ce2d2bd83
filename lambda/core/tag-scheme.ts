/**
 * The tags the controller's role requires before it may attach or detach (DESIGN §8): one of the
 * volume tags on the volume and one of the instance tags on the instance, key and value. The
 * schemes are those AWS's EBS CSI policy family and the installers use (docs/eks.md has the table
 * of who sets which); the stack turns the scheme into the role's conditions (infra/constructs/
 * permissions.ts) and the functions get the same setting, so the controller can say which tag a
 * refused volume lacks. Pure: the same rule serves `explain`, `status` and a preflight.
 */
import { compareText } from './compare.js';

export interface RequiredTag {
  key: string;
  /** The value required (StringEquals); `*` for any value (StringLike), the one account-wide CSI scheme only. */
  value: string;
}

/** Any one tag of each list suffices: the role has one Allow statement per tag. */
export interface TagScheme {
  volume: RequiredTag[];
  instance: RequiredTag[];
}

type Named = Record<string, { tags: (cluster: string) => RequiredTag[]; accountWide?: true }>;

/** Volume tag schemes by name. */
export const VOLUME_TAG_SCHEMES = {
  /** AmazonEBSCSIDriverEKSClusterScopedPolicy; the EBS CSI driver sets it with `k8sTagClusterId`. */
  'cluster-name': { tags: (cluster) => [{ key: 'ebs.csi.aws.com/cluster-name', value: cluster }] },
  /** The EBS CSI driver with `k8sTagClusterId`, the in-tree provisioner, kops. */
  'kubernetes-cluster': { tags: (cluster) => [{ key: `kubernetes.io/cluster/${cluster}`, value: 'owned' }] },
  /** AmazonEBSCSIDriverPolicyV2: every volume the driver (or the in-tree plugin) made, in every cluster of the account. */
  'csi-any-cluster': {
    tags: () => [
      { key: 'ebs.csi.aws.com/cluster', value: 'true' },
      { key: 'kubernetes.io/created-for/pvc/name', value: '*' },
    ],
    accountWide: true,
  },
} satisfies Named;

/** Instance tag schemes by name. */
export const INSTANCE_TAG_SCHEMES = {
  /** EKS managed node groups (AmazonEBSCSIDriverEKSClusterScopedPolicy's first instance statement). */
  'eks-nodegroup': { tags: (cluster) => [{ key: 'eks:cluster-name', value: cluster }] },
  /** EKS Auto Mode and Karpenter. */
  'eks-auto-mode': { tags: (cluster) => [{ key: 'eks:eks-cluster-name', value: cluster }] },
  /** Instances tagged by hand (the cluster-scoped policy's second instance statement). */
  'cluster-name': { tags: (cluster) => [{ key: 'ebs.csi.aws.com/cluster-name', value: cluster }] },
  /** Self-managed node groups (eksctl, the AWS cloud provider's own tag), Karpenter. */
  'kubernetes-cluster': { tags: (cluster) => [{ key: `kubernetes.io/cluster/${cluster}`, value: 'owned' }] },
} satisfies Named;

/** Every scheme names this cluster; an account-wide one only by explicit choice. */
export const DEFAULT_VOLUME_TAGS = 'cluster-name,kubernetes-cluster';
export const DEFAULT_INSTANCE_TAGS = 'eks-nodegroup,eks-auto-mode,cluster-name,kubernetes-cluster';

export type TagSide = 'volume' | 'instance';
const SCHEMES: Record<TagSide, Named> = { volume: VOLUME_TAG_SCHEMES, instance: INSTANCE_TAG_SCHEMES };

/** `key=value` entries must name the cluster: the value is its name, or the key ends `/<name>`. */
function namesCluster(tag: RequiredTag, cluster: string): boolean {
  return tag.value === cluster || tag.key.endsWith(`/${cluster}`);
}

/**
 * Reads a setting: a comma-separated list of scheme names and `key=value` pairs (the first `=`
 * splits, so a key holds none). Problems come back one sentence each; a free-text tag that names
 * no cluster is one of them (with it the condition would span clusters).
 */
export function parseTagList(text: string, side: TagSide, cluster: string): { tags: RequiredTag[]; problems: string[] } {
  const tags: RequiredTag[] = [];
  const problems: string[] = [];
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) problems.push(`names no ${side} tag`);
  for (const entry of entries) {
    const scheme = SCHEMES[side][entry];
    if (scheme !== undefined) {
      tags.push(...scheme.tags(cluster));
      continue;
    }
    const at = entry.indexOf('=');
    const tag = at > 0 ? { key: entry.slice(0, at), value: entry.slice(at + 1) } : undefined;
    if (tag === undefined || tag.value === '' || tag.value === '*') {
      problems.push(`"${entry}" is neither a ${side} tag scheme (${Object.keys(SCHEMES[side]).join(', ')}) nor key=value`);
    } else if (!namesCluster(tag, cluster)) {
      problems.push(`"${entry}" names no cluster: its value must be "${cluster}" or its key end with "/${cluster}"`);
    } else tags.push(tag);
  }
  return { tags: dedupe(tags), problems };
}

function dedupe(tags: RequiredTag[]): RequiredTag[] {
  const seen = new Map(tags.map((tag) => [`${tag.key}=${tag.value}`, tag]));
  return [...seen.values()];
}

/** Whether the list uses a scheme that spans every cluster of the account. */
export function spansAccount(text: string, side: TagSide): boolean {
  return text.split(',').some((entry) => SCHEMES[side][entry.trim()]?.accountWide === true);
}

const carries = (tags: ReadonlyMap<string, string>, tag: RequiredTag) =>
  tags.has(tag.key) && (tag.value === '*' || tags.get(tag.key) === tag.value);

/** The required tags a resource lacks: empty when it carries one of them, else every alternative. */
export function missingTags(required: readonly RequiredTag[], tags: ReadonlyMap<string, string>): RequiredTag[] {
  return required.some((tag) => carries(tags, tag)) ? [] : [...required];
}

export const tagText = (tag: RequiredTag) => (tag.value === '*' ? `${tag.key} (any value)` : `${tag.key}=${tag.value}`);

/** "tag k=v" or "one of the tags k=v, k2=v2". */
export function tagsText(tags: readonly RequiredTag[]): string {
  const texts = tags.map(tagText).sort(compareText);
  return texts.length === 1 ? `tag ${texts[0]}` : `one of the tags ${texts.join(', ')}`;
}

/**
 * Why the role may not attach or detach this volume on this instance, or undefined when their
 * tags satisfy the scheme: "volume vol-… lacks tag … that the role requires" (and the instance's).
 */
export function notAuthorizedReason(
  scheme: TagScheme,
  volume: { volumeId: string; tags: ReadonlyMap<string, string> },
  instance?: { instanceId: string; tags: ReadonlyMap<string, string> },
): string | undefined {
  const lacks: string[] = [];
  const volumeLacks = missingTags(scheme.volume, volume.tags);
  if (volumeLacks.length > 0) lacks.push(`volume ${volume.volumeId} lacks ${tagsText(volumeLacks)}`);
  const instanceLacks = instance === undefined ? [] : missingTags(scheme.instance, instance.tags);
  if (instance !== undefined && instanceLacks.length > 0) lacks.push(`instance ${instance.instanceId} lacks ${tagsText(instanceLacks)}`);
  return lacks.length === 0 ? undefined : `${lacks.join(', and ')} that the role requires`;
}
