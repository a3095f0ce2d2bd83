/** Lambda entry of the cluster-event pass: the controller is wired once per execution environment. */
import { createController } from '../composition.js';
import { loadConfig } from '../config.js';
import { clusterEventHandler } from './sqs-handler.js';

export const handler = clusterEventHandler(createController(loadConfig(process.env)));
