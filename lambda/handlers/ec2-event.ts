/** Lambda entry of the EC2-event pass: the controller is wired once per execution environment. */
import { createController } from '../composition.js';
import { loadConfig } from '../config.js';
import { ec2EventHandler } from './sqs-handler.js';

export const handler = ec2EventHandler(createController(loadConfig(process.env)));
