import { z } from 'zod';
import { ScheduleOptionsError } from '../../errors/index.js';
import { firstProblem, scheduleFields, unknownKey } from '../../store/index.js';
import type { HandleOptions } from './handle-options.js';

const handleSchema = z.strictObject(
  {
    name: scheduleFields.name.unwrap(),
    queue: scheduleFields.queue,
    middleware: z
      .array(
        z.custom<(...a: never[]) => unknown>((f) => typeof f === 'function'),
        {
          error: 'must be an array of middleware functions',
        },
      )
      .optional(),
  },
  { error: unknownKey('option') },
);

/** Check `handle()`'s name and options with the store's field rules; the checked name, or a `ScheduleOptionsError` naming the field. */
export function checkHandleOptions(name: unknown, options: HandleOptions, nameRequired = true): string {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new ScheduleOptionsError(undefined, 'options', 'must be an object of handle options');
  }
  // a decorator without a name takes the method's: the name is checked when it is applied
  const parsed = handleSchema.safeParse({
    ...options,
    name: name === undefined && !nameRequired ? 'method' : name,
  });
  if (!parsed.success) {
    const { field, reason } = firstProblem(parsed.error);
    throw new ScheduleOptionsError(typeof name === 'string' ? name : undefined, field, reason);
  }
  return parsed.data.name;
}
