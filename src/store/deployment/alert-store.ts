import type { Redis } from 'ioredis';
import {
  type Delivery,
  type Incident,
  type IncidentCause,
  parseDelivery,
  parseIncident,
} from '../forms/index.js';
import { hashTag, type Keys } from '../keys/index.js';
import { expectingDefinitions } from '../reads/index.js';
import {
  INCIDENT,
  OUTBOX_DONE,
  OUTBOX_TAKE,
  ScriptCaller,
  scriptArgs,
  unexpected,
} from '../scripts/index.js';

/** How many incidents are kept (the oldest resolved ones beyond it go, with their deliveries). */
export const INCIDENTS_KEPT = 1000;

/** The keys of a deployment's alerts: deployment-wide, under `{prefix}` (one slot on a cluster). */
export function alertKeys(prefix: string) {
  const base = `${hashTag(prefix)}:bb:alerts`;
  return {
    open: `${base}:open`,
    closed: `${base}:closed`,
    incidents: `${base}:incidents`,
    recent: `${base}:recent`,
    seq: `${base}:seq`,
    outbox: `${base}:outbox`,
    deliveries: `${base}:deliveries`,
    stats: `${base}:stats`,
    /** Hash: notifier name -> its kind, announced by each scheduler replica that has it. */
    notifiers: `${base}:notifiers`,
    /** String: held by the replica whose turn it is to check expectations (`checkTurn`). */
    check: `${base}:check`,
    /** String per heartbeat period: held by the one replica that sends that period's beat. */
    beat: (period: number) => `${base}:beat:${period}`,
  };
}
export type AlertKeys = ReturnType<typeof alertKeys>;

/** A delivery taken from the outbox, with its token (the lease's due time). */
export interface TakenDelivery {
  delivery: Delivery;
  token: string;
}

/** What `bullbeat alerts`, the API and the dashboard show: incidents with their deliveries, and the counters. */
export interface AlertsReport {
  incidents: (Incident & { deliveries: Delivery[] })[];
  /** `{ notifier: { sent, retry, failed } }`: attempts recorded, by outcome. */
  deliveryCounts: Record<string, Record<string, number>>;
  /** Deliveries waiting in the outbox (due, leased or retrying). */
  outbox: number;
  /** The notifiers the scheduler replicas announced, name -> kind. */
  notifiers: Record<string, string>;
}

/** Which incidents to read. */
export interface IncidentQuery {
  /** Only the open ones. */
  open?: boolean;
  /** At most this many (default 100). */
  limit?: number;
  /** Only those of these schedules (a label selector's pick). */
  scheduleIds?: ReadonlySet<string>;
}

/** The slot of an incident: one per cause and schedule. */
export const incidentSlot = (cause: IncidentCause, scheduleId: string) => `${cause}|${scheduleId}`;

/**
 * A deployment's incidents and their outbox in Redis: opened and resolved by `incident-7` (which writes
 * the deliveries in the same script), delivered through `outbox-take-2` / `outbox-done-3`.
 */
export class AlertStore extends ScriptCaller {
  readonly keys: AlertKeys;

  constructor(redis: Redis, prefix: string) {
    super(redis);
    this.keys = alertKeys(prefix);
  }

  private incidentKeys() {
    const k = this.keys;
    return {
      open: k.open,
      closed: k.closed,
      incidents: k.incidents,
      recent: k.recent,
      seq: k.seq,
      outbox: k.outbox,
      deliveries: k.deliveries,
    };
  }

  /**
   * Open the incident of `cause` for a schedule, at `occurrence`, telling `notify`: `opened` (with its
   * id), `open` (already open: nothing written), `closed` (this occurrence's was resolved already).
   */
  async open(
    a: { scheduleId: string; cause: IncidentCause; occurrence: number; why: string; queue?: string },
    notify: readonly string[],
  ): Promise<{ result: 'opened' | 'open' | 'closed'; id: string }> {
    const out = await this.run(
      INCIDENT,
      scriptArgs(INCIDENT, this.incidentKeys(), {
        op: 'open',
        slot: incidentSlot(a.cause, a.scheduleId),
        occurrence: a.occurrence,
        incident: JSON.stringify(a),
        notifiers: notify.join(','),
        keep: INCIDENTS_KEPT,
      }),
    );
    const [code, id] = out as [number, string];
    if (code === 1) return { result: 'opened', id };
    if (code === 0) return { result: 'open', id };
    if (code === -1) return { result: 'closed', id: '' };
    throw unexpected(INCIDENT, out);
  }

  /** Resolve the open incident of `cause` for a schedule: its id, or undefined when none was open. */
  async resolve(cause: IncidentCause, scheduleId: string, why: string): Promise<string | undefined> {
    const out = await this.run(
      INCIDENT,
      scriptArgs(INCIDENT, this.incidentKeys(), {
        op: 'resolve',
        slot: incidentSlot(cause, scheduleId),
        occurrence: '',
        incident: why,
        notifiers: '',
        keep: INCIDENTS_KEPT,
      }),
    );
    const [code, id] = out as [number, string];
    return code === 1 ? id : undefined;
  }

  /** Redis time (ms): the clock incidents and deliveries are judged by. */
  async time(): Promise<number> {
    // a test's clock for the outbox (setScriptClock), else Redis TIME
    const given = this.clockMs(OUTBOX_TAKE);
    if (given !== undefined) return given;
    const [s, us] = await this.redis.time();
    return Number(s) * 1000 + Math.floor(Number(us) / 1000);
  }

  /** One incident by id, or null. */
  async incident(id: string): Promise<Incident | null> {
    return parseIncident(await this.redis.hget(this.keys.incidents, id));
  }

  /** The open incidents' slots (`<cause>|<schedule id>`) and ids. */
  async openSlots(): Promise<Map<string, string>> {
    return new Map(Object.entries(await this.redis.hgetall(this.keys.open)));
  }

  /**
   * The newest incidents first (only the open ones with `open`; only those of the schedules in
   * `scheduleIds` when given, the deployment's own `no-scheduler` left out then), at most `limit`.
   */
  async incidents(o: IncidentQuery = {}): Promise<Incident[]> {
    const limit = o.limit ?? 100;
    const ids = o.open
      ? [...(await this.openSlots()).values()]
      : await this.redis.zrevrange(this.keys.recent, 0, (o.scheduleIds ? INCIDENTS_KEPT : limit) - 1);
    if (ids.length === 0) return [];
    const raw = await this.redis.hmget(this.keys.incidents, ...ids);
    return raw
      .map(parseIncident)
      .filter((i): i is Incident => i !== null && (!o.scheduleIds || o.scheduleIds.has(i.scheduleId)))
      .sort((a, b) => b.openedAt - a.openedAt || Number(b.id.slice(4)) - Number(a.id.slice(4)))
      .slice(0, limit);
  }

  /** The deliveries of these incidents, each incident's in order (opened, then resolved, per notifier). */
  async deliveriesOf(incidents: readonly Incident[]): Promise<Delivery[]> {
    const ids = incidents.flatMap((i) =>
      i.notify.flatMap((n) => [`${i.id}|${n}|opened`, `${i.id}|${n}|resolved`]),
    );
    if (ids.length === 0) return [];
    const raw = await this.redis.hmget(this.keys.deliveries, ...ids);
    return raw.map(parseDelivery).filter((d): d is Delivery => d !== null);
  }

  /** Take up to `most` due deliveries to the named notifiers, each leased `leaseMs`. */
  async take(leaseMs: number, most: number, notifiers: readonly string[]): Promise<TakenDelivery[]> {
    if (notifiers.length === 0) return [];
    const out = (await this.run(
      OUTBOX_TAKE,
      scriptArgs(
        OUTBOX_TAKE,
        { outbox: this.keys.outbox, deliveries: this.keys.deliveries },
        { lease: leaseMs, most, notifiers: notifiers.join(','), clockMs: this.clockMs(OUTBOX_TAKE) },
      ),
    )) as string[];
    const taken: TakenDelivery[] = [];
    for (let i = 0; i + 2 < out.length; i += 3) {
      const delivery = parseDelivery(out[i + 1]);
      if (delivery) taken.push({ delivery, token: out[i + 2]! });
    }
    return taken;
  }

  /** Record a delivery's attempt: `sent`, `retry` at `retryAt`, or `failed` (given up). */
  async done(
    taken: TakenDelivery,
    outcome: 'sent' | 'retry' | 'failed',
    delivery: Delivery,
    retryAt?: number,
  ): Promise<boolean> {
    const out = await this.run(
      OUTBOX_DONE,
      scriptArgs(
        OUTBOX_DONE,
        { outbox: this.keys.outbox, deliveries: this.keys.deliveries, stats: this.keys.stats },
        {
          id: delivery.id,
          token: taken.token,
          outcome,
          json: JSON.stringify(delivery),
          retry: retryAt ?? '',
          notifier: delivery.notifier,
        },
      ),
    );
    return out === 1;
  }

  /** The incidents (open ones only with `open`, newest first) with their deliveries, and the counters. */
  async report(o: IncidentQuery = {}): Promise<AlertsReport> {
    const incidents = await this.incidents(o);
    const deliveries = await this.deliveriesOf(incidents);
    return {
      incidents: incidents.map((i) => ({ ...i, deliveries: deliveries.filter((d) => d.incident === i.id) })),
      deliveryCounts: await this.deliveryCounts(),
      outbox: await this.outboxSize(),
      notifiers: await this.redis.hgetall(this.keys.notifiers),
    };
  }

  /** Delivery counters: `{ notifier: { sent, retry, failed } }`. */
  async deliveryCounts(): Promise<Record<string, Record<string, number>>> {
    const out: Record<string, Record<string, number>> = {};
    for (const [k, v] of Object.entries(await this.redis.hgetall(this.keys.stats))) {
      const at = k.lastIndexOf('|');
      const byOutcome = (out[k.slice(0, at)] ??= {});
      byOutcome[k.slice(at + 1)] = Number(v);
    }
    return out;
  }

  /** How many deliveries wait in the outbox. */
  outboxSize(): Promise<number> {
    return this.redis.zcard(this.keys.outbox);
  }

  /** Say which notifiers this replica has (name -> kind), so that definitions elsewhere can check names. */
  async announceNotifiers(notifiers: readonly { name: string; kind: string }[]): Promise<void> {
    if (notifiers.length === 0) return;
    await this.redis.hset(this.keys.notifiers, ...notifiers.flatMap((n) => [n.name, n.kind]));
  }

  /** The notifier names announced by scheduler replicas. */
  async notifierNames(): Promise<string[]> {
    return this.redis.hkeys(this.keys.notifiers);
  }

  /**
   * The stored definitions (id, JSON) of the schedules that expect something, every partition's: those
   * of the expectations index (`expectingDefinitions`), or all of them with `all` (the deployment's own
   * expectations apply to every schedule).
   */
  async watchedDefinitions(keys: Keys, all: boolean): Promise<[string, string][]> {
    if (!all) return expectingDefinitions(this.redis, keys);
    const out: [string, string][] = [];
    for (const p of keys.all()) {
      let cursor = '0';
      do {
        const [next, flat] = await this.redis.hscan(p.schedules, cursor, 'COUNT', 500);
        cursor = next;
        for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!]);
      } while (cursor !== '0');
    }
    return out;
  }

  /**
   * True for the one caller per `ms` that gets the turn to check expectations, and for that caller
   * again while its turn lasts (its next tick come early: timers bunched after a stalled event loop,
   * or a test's clock that moves faster than Redis's expiries); never for another meanwhile.
   */
  async checkTurn(ms: number, holder: string): Promise<boolean> {
    if ((await this.redis.set(this.keys.check, holder, 'PX', ms, 'NX')) === 'OK') return true;
    return (await this.redis.get(this.keys.check)) === holder;
  }

  /** True for the one caller that claims heartbeat period `period` (held `ttlMs`). */
  async claimBeat(period: number, ttlMs: number, holder: string): Promise<boolean> {
    return (await this.redis.set(this.keys.beat(period), holder, 'PX', ttlMs, 'NX')) === 'OK';
  }
}
