/**
 * The events the handlers accept, as Powertools parser schemas (zod). An event that does
 * not match is rejected with the schema's explanation; it never reaches a pass.
 */
import { JSONStringified } from '@aws-lambda-powertools/parser/helpers';
import { EventBridgeSchema, SqsRecordSchema } from '@aws-lambda-powertools/parser/schemas';
import { z } from 'zod';

/** EventBridge Scheduler's payload for the full pass (`{ "pass": "full" }`); an empty payload means the same. */
export const ScheduledEventSchema = z.object({ pass: z.literal('full').default('full') }).loose();

/** The slice of a core/v1 Event the controller reads from kubernetes-event-exporter's detail. */
const KubernetesEventDetailSchema = z
  .object({
    reason: z.string().optional(),
    type: z.string().optional(),
    involvedObject: z
      .object({
        kind: z.enum(['Pod', 'Node']),
        namespace: z.string().min(1).optional(),
        name: z.string().min(1),
        uid: z.string().optional(),
      })
      .loose()
      .refine((object) => object.kind !== 'Pod' || object.namespace !== undefined, {
        message: 'a Pod event must name the namespace',
        path: ['namespace'],
      }),
  })
  .loose();

/** kubernetes-event-exporter's EventBridge sink: Source and DetailType as the stack's rule matches them. */
export const KubernetesEventSchema = EventBridgeSchema.extend({
  source: z.literal('kubernetes-event-exporter'),
  'detail-type': z.literal('Kubernetes Event'),
  detail: KubernetesEventDetailSchema,
});

/** EC2's instance id: `i-` and 8 or 17 hex characters. */
const InstanceIdSchema = z.string().regex(/^i-(?:[0-9a-f]{8}|[0-9a-f]{17})$/, 'not an EC2 instance id');

export const Ec2StateChangeSchema = EventBridgeSchema.extend({
  source: z.literal('aws.ec2'),
  'detail-type': z.literal('EC2 Instance State-change Notification'),
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
