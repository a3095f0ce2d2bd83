/** The Kubernetes adapter: what the composition root and operators' tools use. */
export { createKubeClients, type KubeClientOptions, type KubeClients } from './clients.js';
export { eksToken, eksTokenProvider, type CredentialsProvider, type EksTokenOptions, type TokenProvider } from './eks-token.js';
export { KubernetesCluster, type KubernetesClusterOptions } from './kubernetes-cluster.js';
export { kubeConfigForEks, kubeConfigFromFile, type EksClusterAccess } from './kubeconfig.js';
export { DEFAULT_REQUEST_POLICY, type RequestPolicy, type RetryNotice } from './request-policy.js';
export { volumeAttachmentName } from './volume-attachment-name.js';
