/**
 * Builds the `KubeConfig` the adapter talks through: (a) a kubeconfig file for local runs,
 * (b) an EKS endpoint, its CA and an EKS token provider for Lambda. Both are plain
 * client-node `KubeConfig`s, so everything downstream is the same.
 */
import { KubeConfig, type User } from '@kubernetes/client-node';
import type { TokenProvider } from './eks-token.js';

/** client-node's `Authenticator` (not exported from its package root). */
type Authenticator = Parameters<KubeConfig['addAuthenticator']>[0];

/** The auth-provider name that routes a kubeconfig user to `EksTokenAuthenticator`. */
const EKS_AUTH_PROVIDER = 'ebs-attach-detach-eks-token';

/**
 * A client-node `Authenticator` that puts a fresh EKS token on every request. client-node
 * asks each registered authenticator whether it serves the current user, then lets it set
 * the request headers.
 */
class EksTokenAuthenticator implements Authenticator {
  constructor(private readonly token: TokenProvider) {}

  isAuthProvider(user: User): boolean {
    // client-node types authProvider as any.
    const provider = user.authProvider as { name?: unknown } | undefined;
    return provider?.name === EKS_AUTH_PROVIDER;
  }

  async applyAuthentication(_user: User, opts: { headers?: Record<string, unknown> }): Promise<void> {
    opts.headers ??= {};
    opts.headers.Authorization = `Bearer ${await this.token()}`;
  }
}

/** (a) `path`, or else `KUBECONFIG` / `~/.kube/config` as client-node's `loadFromDefault` resolves them. */
export function kubeConfigFromFile(path?: string): KubeConfig {
  const kc = new KubeConfig();
  if (path === undefined) kc.loadFromDefault();
  else kc.loadFromFile(path);
  if (kc.getCurrentCluster() === null) {
    throw new Error(`kubeconfig ${path ?? '(default)'} has no current cluster`);
  }
  return kc;
}

export interface EksClusterAccess {
  clusterName: string;
  /** `https://…eks.amazonaws.com`, from the cluster's `endpoint`. */
  endpoint: string;
  /** The cluster CA bundle as EKS returns it (`certificateAuthority.data`: base64 PEM). */
  caData: string;
  token: TokenProvider;
}

/** (b) A `KubeConfig` for an EKS cluster whose requests carry tokens from `access.token`. */
export function kubeConfigForEks(access: EksClusterAccess): KubeConfig {
  if (!access.endpoint.startsWith('https://')) {
    throw new Error(`EKS endpoint must be https, got ${JSON.stringify(access.endpoint)}`);
  }
  const kc = new KubeConfig();
  kc.addAuthenticator(new EksTokenAuthenticator(access.token));
  kc.loadFromClusterAndUser(
    { name: access.clusterName, server: access.endpoint, caData: access.caData, skipTLSVerify: false },
    { name: 'ebs-attach-detach', authProvider: { name: EKS_AUTH_PROVIDER, config: {} } },
  );
  return kc;
}
