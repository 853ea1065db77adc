import type { Logger } from 'pino';
import type { AlertStore } from '../store/index.js';
import type { FleetMember } from './fleet-member.js';
import type { FleetReader } from './fleet-registry.js';
import { MISSED_BEATS } from './fleet-registry.js';

/** The subject of the deployment-wide `no-scheduler` incident (it is no schedule's). */
export const DEPLOYMENT_SUBJECT = '*';

/** How often a process looks at the fleet for a live scheduler replica (ms). */
export const NO_SCHEDULER_CHECK_MS = 1000;

/** What the watch reads and writes. */
export interface NoSchedulerWatchDeps {
  fleet: Pick<FleetReader, 'snapshot'>;
  alerts: Pick<AlertStore, 'open' | 'resolve' | 'notifierNames'>;
  /** This process's own notifier names. */
  notifiers: readonly string[];
  /** The deployment's `expect.notify`, when it names some: they, and only they, are told. */
  notify?: readonly string[] | undefined;
  /** How often to look (ms). Default: `NO_SCHEDULER_CHECK_MS`. */
  everyMs?: number;
  logger?: Pick<Logger, 'warn' | 'info'> | undefined;
}

const iso = (t: number) => new Date(t).toISOString();
const deadAt = (m: FleetMember) => m.lastBeat + MISSED_BEATS * m.heartbeatMs;

/**
 * The one incident no scheduler replica can open: "no scheduler replica alive". Every long-running
 * process that joined the fleet (workers, and the replicas themselves) looks at the fleet's rows once
 * a second: when scheduler replicas were seen and none is alive, it opens the deployment's
 * `no-scheduler` incident; when one is alive again, it resolves it. Both go through `incident-7`, so
 * however many processes look, the incident opens once and resolves once. Its occurrence is the
 * instant the last replica counted as dead: every watcher of one outage names the same one.
 */
export class NoSchedulerWatch {
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;

  constructor(private readonly deps: NoSchedulerWatchDeps) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.checking ??= this.check()
        .then(() => undefined)
        .catch((err: unknown) => this.deps.logger?.warn({ err }, 'bullbeat: no-scheduler check failed'))
        .finally(() => {
          this.checking = undefined;
        });
    }, this.deps.everyMs ?? NO_SCHEDULER_CHECK_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.checking;
  }

  /** One look: `opened` or `resolved` when this look changed the incident, else undefined. */
  async check(): Promise<'opened' | 'resolved' | undefined> {
    const { members, now } = await this.deps.fleet.snapshot();
    const schedulers = members.filter((m) => m.role === 'scheduler');
    const alive = schedulers.find((m) => m.alive);
    if (alive) {
      const id = await this.deps.alerts.resolve(
        'no-scheduler',
        DEPLOYMENT_SUBJECT,
        `scheduler replica ${alive.id} is alive (last beat ${iso(alive.lastBeat)})`,
      );
      if (id === undefined) return undefined;
      this.deps.logger?.info({ incident: id, replica: alive.id }, 'bullbeat: incident resolved');
      return 'resolved';
    }
    // none was ever seen (or the dead ones were forgotten): nothing to compare with
    if (schedulers.length === 0) return undefined;
    const last = schedulers.reduce((a, b) => (deadAt(b) > deadAt(a) ? b : a));
    const since = deadAt(last);
    const why =
      `no scheduler replica alive: ${schedulers.length} known, none beating; the last, ${last.id}, ` +
      `beat at ${iso(last.lastBeat)} and counts as dead since ${iso(since)} (${MISSED_BEATS} missed beats of ` +
      `${last.heartbeatMs} ms), ${((now - since) / 1000).toFixed(1)} s ago; no occurrence is enqueued until one is back`;
    const notify = this.deps.notify ?? [
      ...new Set([...this.deps.notifiers, ...(await this.deps.alerts.notifierNames())]),
    ];
    const { result, id } = await this.deps.alerts.open(
      { scheduleId: DEPLOYMENT_SUBJECT, cause: 'no-scheduler', occurrence: since, why },
      notify,
    );
    if (result !== 'opened') return undefined;
    this.deps.logger?.warn({ incident: id, why }, 'bullbeat: incident opened');
    return 'opened';
  }
}
