/**
 * EC2 Query responses: `<ActionResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">` with a
 * `requestId` first, lists as `<xSet><item>…</item></xSet>`; errors as
 * `<Response><Errors><Error><Code/><Message/></Error></Errors><RequestID/></Response>`.
 */
import XMLBuilder from 'fast-xml-builder';
import type { Ec2Error } from './errors.js';

const EC2_NAMESPACE = 'http://ec2.amazonaws.com/doc/2016-11-15/';

/** A response body: nested plain values; `undefined` members are left out. */
export type XmlValue = string | number | boolean | undefined | XmlObject | XmlValue[];
export interface XmlObject {
  [name: string]: XmlValue;
}

const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@_', suppressEmptyNode: true });
const DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n';

/** An EC2 list: `<name><item>…</item></name>`, an empty element when there is nothing. */
export function itemSet(items: XmlValue[]): XmlValue {
  return items.length === 0 ? '' : { item: items };
}

export function renderResponse(action: string, requestId: string, body: XmlObject): string {
  const root = { '@_xmlns': EC2_NAMESPACE, requestId, ...body };
  return DECLARATION + builder.build({ [`${action}Response`]: root });
}

export function renderError(error: Ec2Error, requestId: string): string {
  const errors = { Error: { Code: error.code, Message: error.message } };
  return DECLARATION + builder.build({ Response: { Errors: errors, RequestID: requestId } });
}

/** EC2 timestamps: ISO 8601 with milliseconds, UTC. */
export function timestamp(epochMs: number): string {
  return new Date(epochMs).toISOString();
}
