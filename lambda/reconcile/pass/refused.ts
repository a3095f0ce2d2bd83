/**
 * A Kubernetes call the API server refused the role (RBAC), read from the words the adapters put
 * on every API error: `<code> <reason>: <message>` (adapters/kubernetes/api-errors.ts,
 * describeApiError). EC2's refusals arrive as outcomes (`unauthorized`), never as text.
 */
export const isKubernetesForbidden = (text: string | undefined): boolean => text !== undefined && /\b403 Forbidden\b/.test(text);
