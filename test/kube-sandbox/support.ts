/**
 * Helpers for the sandbox's own tests: the real client-node APIs from the sandbox's kubeconfig,
 * a raw HTTPS caller that trusts the sandbox CA (to see status codes and bodies as sent), and
 * small builders for the objects the tests seed.
 */
import { request } from 'node:https';
import * as k8s from '@kubernetes/client-node';
import type { KubeSandbox } from '../../sandbox/kube/index.js';

export function clientsFor(sandbox: KubeSandbox) {
  const config = new k8s.KubeConfig();
  config.loadFromFile(sandbox.kubeconfigPath);
  return { core: config.makeApiClient(k8s.CoreV1Api), storage: config.makeApiClient(k8s.StorageV1Api) };
}

export const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
export const strategic = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch);

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read whatever the server sent
  body: any;
}

export interface RawOptions {
  body?: unknown;
  contentType?: string;
  accept?: string;
  /** null: send no Authorization header. */
  token?: string | null;
  ca?: string;
}

/** One HTTPS request to the sandbox, verifying its certificate against `ca` (the sandbox CA by default). */
export function raw(sandbox: KubeSandbox, method: string, path: string, options: RawOptions = {}): Promise<RawResponse> {
  const token = options.token === undefined ? sandbox.token : options.token;
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, sandbox.url),
      {
        method,
        ca: options.ca ?? sandbox.caPem,
        headers: {
          ...(token !== null ? { authorization: `Bearer ${token}` } : {}),
          // Node's client sends a DELETE body unframed unless told its length.
          ...(payload !== undefined
            ? { 'content-type': options.contentType ?? 'application/json', 'content-length': String(Buffer.byteLength(payload)) }
            : {}),
          ...(options.accept ? { accept: options.accept } : {}),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const isJson = (response.headers['content-type'] ?? '').startsWith('application/json');
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: isJson ? (JSON.parse(text) as unknown) : text });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** The HTTP status of a failed client-node call (client-node throws ApiException with `code`). */
export async function codeOf(call: Promise<unknown>): Promise<number> {
  try {
    await call;
    return 200;
  } catch (error) {
    return (error as { code?: number }).code ?? -1;
  }
}

export function node(name: string, status: Record<string, unknown> = {}) {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name },
    spec: {},
    status: { conditions: [{ type: 'Ready', status: 'True' }], ...status },
  };
}

export function pod(namespace: string, name: string, nodeName?: string) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { namespace, name },
    spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'app', image: 'busybox' }] },
    status: { phase: 'Running' },
  };
}

export function volumeAttachment(name: string, nodeName: string, finalizers: string[] = []) {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'VolumeAttachment',
    metadata: { name, finalizers },
    spec: { attacher: 'ebs.csi.aws.com', nodeName, source: { persistentVolumeName: `pv-${name}` } },
  };
}
