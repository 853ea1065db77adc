import type { Logger } from 'pino';
import type { BackfillOverride, OwedRun } from '../../store/index.js';
import { decodeDefinition } from '../../store/index.js';
import { enqueueOwed, type OwedRunsContext, overriddenDefinition, overriddenMark } from './owed-runs.js';

/** At most this many owed occurrences are taken per partition and sweep. */
const SWEEP_BATCH = 500;

/**
 * A scheduler replica's share of the ledger's promise: every `intervalMs` it takes, partition by
 * partition, the occurrences a backfill or a resume's catch-up took and did not enqueue in time (its
 * process crashed or stalled: `BackfillLedger.takeLapsed`), and enqueues them under their own job ids
 * (a no-op in BullMQ when the taker did add them before it stopped), a backfill's with what that
 * backfill overrides (`BackfillLedger.overridesOf`), recorded as overridden by whoever asked. A replica
 * that dies holding them leaves them to the next sweep of any replica (`leaseMs` later).
 */
export class OwedRunsSweeper {
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;

  constructor(
    private readonly ctx: OwedRunsContext,
    private readonly partitions: number,
    private readonly intervalMs: number,
    private readonly leaseMs: number,
    private readonly logger: Logger,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.sweeping ??= this.sweep()
        .catch((err: unknown) =>
          this.logger.warn({ err }, 'bullbeat: owed catch-up/backfill runs: sweep failed'),
        )
        .finally(() => {
          this.sweeping = undefined;
        });
    }, this.intervalMs);
    this.timer.unref();
  }

  /** Stop sweeping; waits for a sweep under way. Safe to call twice. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.sweeping;
  }

  /** One sweep over every partition (one that fails is reported; the others are swept). */
  async sweep(): Promise<void> {
    for (let i = 0; i < this.partitions; i++) {
      await this.sweepPartition(i).catch((err: unknown) =>
        this.logger.warn({ err, partition: i }, 'bullbeat: owed catch-up/backfill runs: sweep failed'),
      );
    }
  }

  private async sweepPartition(i: number): Promise<void> {
    const lapsed = await this.ctx.ledger.takeLapsed(i, this.leaseMs, SWEEP_BATCH);
    const bySchedule = new Map<string, { definition: string; runs: { run: OwedRun; owedBy: number }[] }>();
    for (const { run, definition, owedBy } of lapsed) {
      const entry = bySchedule.get(run.scheduleId) ?? { definition, runs: [] };
      entry.runs.push({ run, owedBy });
      bySchedule.set(run.scheduleId, entry);
    }
    for (const [id, { definition, runs }] of bySchedule) {
      const { def, problem } = decodeDefinition(id, definition);
      if (problem) {
        this.logger.error(
          { scheduleId: id, problem },
          'bullbeat: owed runs of a schedule whose definition cannot be read',
        );
        continue;
      }
      const fireAts = runs.map((r) => r.run.fireAt);
      try {
        // read before the keep: an override stays while an occurrence naming it is owed
        const overrides = await this.ctx.ledger.overridesOf(
          id,
          runs.filter((r) => r.run.lane === 'backfill').map((r) => r.run.fireAt),
        );
        // a sweep stopped past the time it was given adds none that another sweep took meanwhile
        const lost = await this.ctx.ledger.keep(id, runs, this.leaseMs);
        const mine = runs.map((r) => r.run).filter((r) => !lost.has(r));
        for (const [override, group] of byOverride(mine, overrides)) {
          if (override && 'problem' in override) {
            // never run with the schedule's data what was asked to run with other data: owed again a lease later
            this.logger.error(
              { scheduleId: id, fireAts: group.map((r) => r.fireAt), problem: override.problem },
              'bullbeat: owed backfill runs whose override cannot be read',
            );
            continue;
          }
          await enqueueOwed(
            this.ctx,
            override ? overriddenDefinition(def, override.value) : def,
            group,
            override && overriddenMark(override.value),
          );
        }
      } catch (err) {
        // one schedule's refused job (or a lost connection) leaves the others: it is owed again a lease later
        this.logger.error({ err, scheduleId: id, fireAts }, 'bullbeat: could not enqueue owed runs');
        continue;
      }
      this.logger.warn(
        { scheduleId: id, fireAts },
        'bullbeat: enqueued catch-up/backfill runs that their taker did not enqueue in time',
      );
    }
  }
}

type ReadOverride = { id: string; value: BackfillOverride } | { id: string; problem: string };

/** Owed runs grouped by the override their backfill keeps (undefined: none, the schedule's own). */
function byOverride(
  runs: readonly OwedRun[],
  overrides: ReadonlyMap<number, ReadOverride>,
): Map<ReadOverride | undefined, OwedRun[]> {
  const groups = new Map<ReadOverride | undefined, OwedRun[]>();
  const seen = new Map<string, ReadOverride>();
  for (const run of runs) {
    const found = run.lane === 'backfill' ? overrides.get(run.fireAt) : undefined;
    // one group per override id (each fire time maps to its own object)
    const key = found ? (seen.get(found.id) ?? seen.set(found.id, found).get(found.id)) : undefined;
    const group = groups.get(key) ?? [];
    group.push(run);
    groups.set(key, group);
  }
  return groups;
}
