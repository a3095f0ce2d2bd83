/**
 * EventBridge Scheduler's payloads, the events of the scheduled full pass and the watcher. Their
 * own module, apart from the SQS-fed events' schemas (event-schemas.ts), so neither function's
 * bundle builds the EventBridge and SQS envelope schemas it never parses.
 */
import { z } from 'zod';
import { FULL_PASS_INPUT, WATCH_INPUT } from './contracts.js';

/** EventBridge Scheduler's payload for the full pass (`{ "pass": "full" }`); an empty payload means the same. */
export const ScheduledEventSchema = z.object({ pass: z.literal(FULL_PASS_INPUT.pass).default(FULL_PASS_INPUT.pass) }).loose();

/** EventBridge Scheduler's payload for the watcher (`{ "pass": "watch" }`); an empty payload means the same. */
export const WatchEventSchema = z.object({ pass: z.literal(WATCH_INPUT.pass).default(WATCH_INPUT.pass) }).loose();
