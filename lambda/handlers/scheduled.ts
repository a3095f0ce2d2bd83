/** Lambda entry of the scheduled full pass: the controller is wired once per execution environment. */
import { createController } from '../composition.js';
import { loadConfig } from '../config.js';
import { scheduledHandler } from './scheduled-handler.js';

export const handler = scheduledHandler(createController(loadConfig(process.env)));
