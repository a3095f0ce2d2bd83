/**
 * The tags a real cluster's resources carry, as its installers set them, so the local EC2's IAM
 * check (the stack's default tag schemes) sees what AWS would: volumes as the EBS CSI driver tags
 * them with `k8sTagClusterId` set, instances as an EKS managed node group tags them.
 */
export function volumeTagsFor(cluster: string): Record<string, string> {
  return {
    'ebs.csi.aws.com/cluster': 'true',
    'ebs.csi.aws.com/cluster-name': cluster,
    [`kubernetes.io/cluster/${cluster}`]: 'owned',
    KubernetesCluster: cluster,
  };
}

export function instanceTagsFor(cluster: string): Record<string, string> {
  return { 'eks:cluster-name': cluster, 'eks:nodegroup-name': `${cluster}-nodes`, [`kubernetes.io/cluster/${cluster}`]: 'owned' };
}

/** The cluster name of the generated clusters (demo, fault suite, bench) unless one is given. */
export const GENERATED_CLUSTER = 'demo';
