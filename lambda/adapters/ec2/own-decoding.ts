/**
 * A command that decodes its own successful answer, keeping the SDK client: two middlewares around
 * the SDK's `deserializerMiddleware`. The inner one decodes a 2xx body and hands the SDK an empty
 * one, so the SDK's parse and schema walk have nothing to do; the outer one puts what was decoded
 * into the command's output. Any other status is untouched: errors are the SDK's to deserialize and
 * throw as ever; retries, signing and $metadata stay the SDK's too.
 */
import type { DeserializeMiddleware, HttpResponse, MiddlewareStack } from '@smithy/types';

/** Decodes one successful body (Node's response stream, or bytes/text from other handlers). */
export type BodyDecoder = (body: unknown) => Promise<Record<string, unknown>>;

/** The decoded output of an attempt, by the call's context (one per call, shared by its attempts). */
const decoded = new WeakMap<object, Record<string, unknown>>();

/** The body's text, decoded as UTF-8 chunk by chunk. */
export async function* bodyChunks(body: unknown): AsyncGenerator<string> {
  if (typeof body === 'string') yield body;
  else if (body instanceof Uint8Array) yield new TextDecoder().decode(body);
  else if (body !== undefined && body !== null) {
    const utf8 = new TextDecoder();
    for await (const chunk of body as AsyncIterable<Uint8Array | string>)
      yield typeof chunk === 'string' ? chunk : utf8.decode(chunk, { stream: true });
    yield utf8.decode();
  }
}

/**
 * Adds the two middlewares to a client's or a command's stack; `decoderFor` names the decoder of a
 * command (by the SDK's command name), or none to leave it to the SDK.
 */
export function decodeOwnSuccess<Input extends object, Output extends object>(
  stack: Pick<MiddlewareStack<Input, Output>, 'addRelativeTo'>,
  name: string,
  decoderFor: (commandName: string) => BodyDecoder | undefined,
): void {
  const decodeSuccess: DeserializeMiddleware<Input, Output> = (next, context) => async (args) => {
    const result = await next(args);
    const decoder = decoderFor(context.commandName ?? '');
    const response = result.response as HttpResponse;
    if (decoder === undefined || response.statusCode < 200 || response.statusCode >= 300) return result;
    decoded.set(context, await decoder(response.body));
    // The SDK's deserializer reads an empty body as an output of $metadata alone.
    response.body = new Uint8Array(0);
    return result;
  };
  const mergeDecoded: DeserializeMiddleware<Input, Output> = (next, context) => async (args) => {
    const result = await next(args);
    const output = decoded.get(context);
    decoded.delete(context);
    if (output !== undefined) Object.assign(result.output as object, output);
    return result;
  };
  stack.addRelativeTo(decodeSuccess, { name: `${name}Decode`, relation: 'after', toMiddleware: 'deserializerMiddleware', override: true });
  stack.addRelativeTo(mergeDecoded, { name: `${name}Output`, relation: 'before', toMiddleware: 'deserializerMiddleware', override: true });
}
