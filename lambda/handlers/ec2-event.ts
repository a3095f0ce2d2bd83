/** EC2 instance state changes (EventBridge → SQS) → a targeted pass for the instance's node(s). */
import { Ec2StateChangeSchema } from './schemas.js';
import { sqsTargetHandler } from './sqs-handler.js';
import { targetOfEc2Event } from './targets-of.js';

export const handler = sqsTargetHandler(Ec2StateChangeSchema, targetOfEc2Event);
