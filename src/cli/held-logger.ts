import { type Logger, pino } from 'pino';

/** A logger whose lines wait until it is known whether they are worth printing. */
export interface HeldLogger {
  logger: Logger;
  /** Writes the lines held so far to `target`, in order, and forgets them. */
  release(target: Logger): void;
  /** Forgets the lines held so far. */
  drop(): void;
}

const OWN_FIELDS = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'role']);

/**
 * A pino logger that keeps its lines in memory. The CLI gives one to a jobs module's manager while
 * it checks that Redis answers: a module that saves a schedule as it loads (a `{ queue, name }`
 * target) connects at once, and its "redis error" warnings would otherwise come before, and say
 * less than, the one line "Redis is unreachable at ...".
 */
export function heldLogger(level: string): HeldLogger {
  let lines: string[] = [];
  const logger = pino({ level, base: {} }, { write: (line: string) => void lines.push(line) });
  return {
    logger,
    release(target) {
      const held = lines;
      lines = [];
      for (const line of held) {
        const record = JSON.parse(line) as Record<string, unknown>;
        const label = pino.levels.labels[record.level as number] ?? 'info';
        const fields = Object.fromEntries(Object.entries(record).filter(([k]) => !OWN_FIELDS.has(k)));
        const log = (target as unknown as Record<string, (obj: object, msg?: string) => void>)[label];
        log?.call(target, fields, typeof record.msg === 'string' ? record.msg : undefined);
      }
    },
    drop() {
      lines = [];
    },
  };
}
