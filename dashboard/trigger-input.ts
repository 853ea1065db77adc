import { z } from 'zod';
import { unknownKey } from '../src/store/index.js';

/**
 * `POST /api/schedules/:id/trigger`: optional overrides of this one run, `data` (any JSON, at most
 * 64 KiB) and `jobOptions` (a schedule's `jobOptions` fields); the library checks both, naming the field.
 */
export const triggerSchema = z.strictObject(
  {
    data: z.unknown().optional().describe("this run's data instead of the schedule's (JSON, at most 64 KiB)"),
    jobOptions: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("BullMQ options of this run's job over the schedule's (priority, lifo, ...)"),
  },
  { error: unknownKey('field') },
);
