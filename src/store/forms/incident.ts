/** Why an incident opened: one incident per schedule and cause at a time. */
export const INCIDENT_CAUSES = [
  'late', // not started within `startedWithin` of its fire time
  'missed', // recorded missed (misfire), or coalesced because no replica claimed it in time
  'failed', // `failuresInARow` final failures in a row
  'overdue', // not succeeded by `succeededBy`
  'stuck', // running longer than `maxDuration`
  'no-worker', // no worker consumes the schedule's queue
  'no-scheduler', // no scheduler replica alive (seen by a process that is not one)
] as const;
export type IncidentCause = (typeof INCIDENT_CAUSES)[number];

/** One incident, as stored (`alerts:incidents`). Times are Redis epoch ms. */
export interface Incident {
  id: string;
  scheduleId: string;
  cause: IncidentCause;
  /** The fire time of the occurrence that opened it (for `no-worker`, `no-scheduler`: when it was seen). */
  occurrence: number;
  /** Why, in words: what the records say of that occurrence. */
  why: string;
  queue?: string;
  status: 'open' | 'resolved';
  openedAt: number;
  resolvedAt?: number;
  /** What ended it. */
  resolvedWhy?: string;
  /** The notifiers it was delivered to. */
  notify: string[];
}

/** What a delivery carries: the opening or the end of an incident. */
export type DeliveryEvent = 'opened' | 'resolved';

/** One delivery of an incident's event to one notifier (`alerts:deliveries`); its id is `<incident>|<notifier>|<event>`. */
export interface Delivery {
  id: string;
  incident: string;
  notifier: string;
  event: DeliveryEvent;
  createdAt: number;
  /** Attempts made so far. */
  attempts: number;
  /** `pending` (never tried), `retrying` (tried, failed, will try again), `sent`, `failed` (given up). */
  status: 'pending' | 'retrying' | 'sent' | 'failed';
  lastError?: string;
  sentAt?: number;
  /** When the next attempt is due, while retrying. */
  nextAt?: number;
}

function object(raw: string | null | undefined): Record<string, unknown> | null {
  if (!raw) return null;
  try {
    const v = JSON.parse(raw) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Decode a stored incident; null when it is not one (never throws). */
export function parseIncident(raw: string | null | undefined): Incident | null {
  const o = object(raw);
  if (!o || typeof o.id !== 'string' || typeof o.scheduleId !== 'string') return null;
  if (!(INCIDENT_CAUSES as readonly unknown[]).includes(o.cause)) return null;
  return {
    ...(o as unknown as Incident),
    notify: Array.isArray(o.notify) ? (o.notify as string[]) : [],
  };
}

/** Decode a stored delivery; null when it is not one. */
export function parseDelivery(raw: string | null | undefined): Delivery | null {
  const o = object(raw);
  if (!o || typeof o.id !== 'string' || typeof o.notifier !== 'string') return null;
  return o as unknown as Delivery;
}
