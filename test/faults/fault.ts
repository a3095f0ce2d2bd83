/** One fault a step injects (faults.ts draws and injects them). */
export type Fault =
  | { kind: 'ec2-error'; action: string; code: string; count: number }
  | { kind: 'ec2-lost-answer'; action: string; count: number }
  | { kind: 'stuck-attach' }
  | { kind: 'busy-detach' }
  | { kind: 'kube-error'; method: string; path: string; code: number; count: number }
  | { kind: 'kube-pagination'; resource: string; mode: 'error' | 'expired' }
  | { kind: 'dynamo-error'; operation: string; count: number }
  | { kind: 'ec2-read-lag'; ms: number };
