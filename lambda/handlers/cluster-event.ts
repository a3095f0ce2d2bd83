/** Kubernetes events (kubernetes-event-exporter → EventBridge → SQS) → targeted passes per pod or node. */
import { KubernetesEventSchema } from './schemas.js';
import { sqsTargetHandler } from './sqs-handler.js';
import { targetOfKubernetesEvent } from './targets-of.js';

export const handler = sqsTargetHandler(KubernetesEventSchema, targetOfKubernetesEvent);
