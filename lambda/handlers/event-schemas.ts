/**
 * The events the SQS-fed handlers accept, as Powertools parser schemas (zod). An event that does
 * not match (a malformed Kubernetes name or namespace, an EC2 id of the wrong shape) is rejected
 * with the schema's explanation; it never reaches a pass, so no call is made for it.
 */
import { JSONStringified } from '@aws-lambda-powertools/parser/helpers';
// The two schemas' own modules: the package's index builds every AWS event schema it has at import.
import { EventBridgeSchema } from '@aws-lambda-powertools/parser/schemas/eventbridge';
import { SqsRecordSchema } from '@aws-lambda-powertools/parser/schemas/sqs';
import { z } from 'zod';
import { isInstanceId } from '../core/provider-id.js';
import { CLUSTER_EVENT_KINDS, EC2_SOURCE, EC2_STATE_CHANGE_DETAIL_TYPE, EXPORTER_DETAIL_TYPE, EXPORTER_SOURCE } from './contracts.js';
import { DnsLabelSchema, DnsSubdomainSchema } from './kubernetes-names.js';

/**
 * The object an event is about: a Pod (namespaced: its namespace is a DNS-1123 label) or a Node
 * (cluster-scoped: no namespace, or the empty one Go's zero value serializes to). Both are named by
 * DNS-1123 subdomains.
 */
const InvolvedObjectSchema = z
  .object({
    kind: z.enum(CLUSTER_EVENT_KINDS),
    namespace: z.string().optional(),
    name: DnsSubdomainSchema,
    uid: z.string().optional(),
  })
  .loose()
  .superRefine((object, context) => {
    if (object.kind === 'Node') {
      if (object.namespace) context.addIssue({ code: 'custom', message: 'a Node is not namespaced', path: ['namespace'] });
      return;
    }
    if (object.namespace === undefined || object.namespace === '') {
      context.addIssue({ code: 'custom', message: 'a Pod event must name the namespace', path: ['namespace'] });
      return;
    }
    const namespace = DnsLabelSchema.safeParse(object.namespace);
    for (const issue of namespace.success ? [] : namespace.error.issues) {
      context.addIssue({ code: 'custom', message: issue.message, path: ['namespace'] });
    }
  });

/** The slice of a core/v1 Event the controller reads from kubernetes-event-exporter's detail. */
const KubernetesEventDetailSchema = z
  .object({
    reason: z.string().optional(),
    type: z.string().optional(),
    message: z.string().optional(),
    involvedObject: InvolvedObjectSchema,
  })
  .loose();

/** kubernetes-event-exporter's EventBridge sink: Source and DetailType as the stack's rule matches them. */
export const KubernetesEventSchema = EventBridgeSchema.extend({
  source: z.literal(EXPORTER_SOURCE),
  'detail-type': z.literal(EXPORTER_DETAIL_TYPE),
  detail: KubernetesEventDetailSchema,
});

/** EC2's instance id: `i-` and 8 or 17 lowercase hex characters. */
const InstanceIdSchema = z.string().refine(isInstanceId, 'not an EC2 instance id (i- and 8 or 17 lowercase hex characters)');

export const Ec2StateChangeSchema = EventBridgeSchema.extend({
  source: z.literal(EC2_SOURCE),
  'detail-type': z.literal(EC2_STATE_CHANGE_DETAIL_TYPE),
  detail: z.object({ 'instance-id': InstanceIdSchema, state: z.string().min(1) }).loose(),
});

export type KubernetesEvent = z.infer<typeof KubernetesEventSchema>;
export type Ec2StateChange = z.infer<typeof Ec2StateChangeSchema>;

/** An SQS record whose body is the JSON of an EventBridge event matching `schema`. */
export function sqsRecordOf<T extends z.ZodType>(schema: T) {
  return SqsRecordSchema.extend({
    body: JSONStringified(schema),
  });
}

/** The invocation itself: Lambda's SQS event source always sends `Records`. */
export const SqsBatchSchema = z.object({ Records: z.array(z.unknown()) });
