/**
 * The AWS SDK's logger middleware hands every call's input and output, run through the command's
 * sensitive-data filter (a deep copy), to the client's logger: even to the default no-op logger,
 * which discards them. At 20,000 volumes that copy cost about a tenth of a pass's CPU. The
 * controller logs its calls itself, so the middleware is taken off its clients.
 */
export const SDK_LOGGER_MIDDLEWARE = 'loggerMiddleware';

export function withoutSdkLogger<C extends { middlewareStack: { remove(name: string): boolean } }>(client: C): C {
  client.middlewareStack.remove(SDK_LOGGER_MIDDLEWARE);
  return client;
}
