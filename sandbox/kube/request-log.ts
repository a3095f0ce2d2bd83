/**
 * Every API request as RBAC sees it (verb, resource, subresource, namespace, name) with the
 * status it got, and counters keyed `"<verb> <resource>[/<subresource>]"`, e.g. `patch nodes/status`.
 * Non-resource requests (discovery) are logged with resource '' and counted as `"<verb> <path>"`.
 */
import type { RequestInfo } from './paths.js';

export interface LoggedRequest {
  method: string;
  path: string;
  verb: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  status: number;
  /** The API group ('' for core), useful to RBAC checks. */
  group: string;
  /** True when fault injection produced the response. */
  injected?: boolean;
}

function counterKey(info: RequestInfo): string {
  if (!info.isResourceRequest) return `${info.verb} ${info.path}`;
  return `${info.verb} ${info.resource}${info.subresource ? `/${info.subresource}` : ''}`;
}

export class RequestLog {
  private entries: LoggedRequest[] = [];
  private counts = new Map<string, number>();

  record(method: string, info: RequestInfo, status: number, injected: boolean): void {
    this.entries.push({
      method,
      path: info.path,
      verb: info.verb,
      resource: info.resource,
      group: info.group,
      status,
      ...(info.subresource !== undefined ? { subresource: info.subresource } : {}),
      ...(info.namespace !== undefined ? { namespace: info.namespace } : {}),
      ...(info.name !== undefined ? { name: info.name } : {}),
      ...(injected ? { injected } : {}),
    });
    const key = counterKey(info);
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  requests(): LoggedRequest[] {
    return this.entries.map((e) => ({ ...e }));
  }

  counters(): Record<string, number> {
    return Object.fromEntries(this.counts);
  }

  reset(): void {
    this.entries = [];
    this.counts.clear();
  }
}
