/**
 * GET as plain JSON through client-node's configuration: its server, authentication (kubeconfig
 * or EKS token, TLS, the pooled agent) and HTTP library (our request policy), without its typed
 * deserializer, which costs more CPU than parsing the body and builds objects the core never
 * reads. A non-2xx answer throws client-node's `ApiException`, like its typed calls, so
 * api-errors.ts reads both alike.
 */
import { ApiException, HttpMethod, type Configuration } from '@kubernetes/client-node';

export type Query = Record<string, string | number | undefined>;

/** The parsed body of a GET of `path` (e.g. `/api/v1/pods`); throws `ApiException` on a non-2xx answer. */
export type JsonGet = (path: string, query?: Query) => Promise<unknown>;

export function jsonGetter(configuration: Configuration, userAgent: string): JsonGet {
  return async (path, query = {}) => {
    const request = configuration.baseServer.makeRequestContext(path, HttpMethod.GET);
    for (const [name, value] of Object.entries(query)) if (value !== undefined) request.setQueryParam(name, String(value));
    request.setHeaderParam('Accept', 'application/json');
    request.setHeaderParam('User-Agent', userAgent);
    await configuration.authMethods.default?.applySecurityAuthentication(request);
    const response = await configuration.httpApi.send(request).toPromise();
    const text = await response.body.text();
    const body = parseBody(text);
    if (response.httpStatusCode < 200 || response.httpStatusCode > 299) {
      throw new ApiException(response.httpStatusCode, `GET ${path}`, body ?? text, response.headers);
    }
    if (body === undefined) throw new Error(`GET ${path}: the answer is not JSON`);
    return body;
  };
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
