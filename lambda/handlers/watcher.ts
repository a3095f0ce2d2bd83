/** Lambda entry of the watcher: the controller is wired once per execution environment. */
import { createController } from '../composition.js';
import { loadConfig } from '../config.js';
import { watcherHandler } from './watcher-handler.js';

export const handler = watcherHandler(createController(loadConfig(process.env)));
