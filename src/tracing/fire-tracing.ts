import {
  type Attributes,
  isSpanContextValid,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { ATTR, SYSTEM } from './attributes.js';
import { withSpanContext } from './job-context.js';
import { tracer } from './tracer.js';

/**
 * The scheduler's spans of one occurrence (the fire loop imports this module as `occurrenceTrace`) being enqueued: `fire <name>`, the root of the occurrence's
 * trace, from its claim to its completion, and `create <queue>`, its job being added (the context the
 * job carries to the worker).
 */
export interface OccurrenceTrace {
  root: Span;
  create: Span;
}

/** What the fire loop knows of a schedule (its definition). */
interface ScheduleFacts {
  id: string;
  name: string;
  queue: string;
}

/** A claimed occurrence as the fire loop holds it. */
interface ClaimedItem {
  claim: { reclaimed?: boolean };
  /** Redis time of the claim (ms). */
  claimedAt: number;
  plan: {
    enqueue?: { fireAt: number; kind: string };
    missed: readonly { fireAt: number; reason: string }[];
    coalesceInto?: { count: number };
    coalesced?: { fireAt: number; fireAts: readonly number[]; cause: string; standIn: number };
  };
  lateMs?: number;
  trace?: OccurrenceTrace;
}

/** The most occurrences of one claim that get a span each when they do not run (the newest). */
const MAX_NOT_RUN_SPANS = 100;

/**
 * Start the trace of an occurrence whose job is about to be added: undefined when tracing is off (no
 * tracer provider: the no-op tracer's span has no valid context, and nothing else is made).
 */
export function start(
  item: ClaimedItem,
  def: ScheduleFacts,
  fireAt: number,
  jobId: string,
  replica: string,
): OccurrenceTrace | undefined {
  const t = tracer();
  const root = t.startSpan(`fire ${def.name}`, { root: true, startTime: item.claimedAt });
  if (!isSpanContextValid(root.spanContext())) return undefined;
  root.setAttributes({
    [ATTR.scheduleId]: def.id,
    [ATTR.scheduleName]: def.name,
    [ATTR.destination]: def.queue,
    [ATTR.fireAt]: fireAt,
    [ATTR.kind]: item.plan.enqueue?.kind ?? 'scheduled',
    [ATTR.replica]: replica,
    [ATTR.claimedAt]: item.claimedAt,
    [ATTR.reclaimed]: item.claim.reclaimed === true,
    ...(item.lateMs !== undefined && { [ATTR.latenessMs]: item.lateMs }),
  });
  const create = t.startSpan(
    `create ${def.queue}`,
    {
      kind: SpanKind.PRODUCER,
      attributes: {
        [ATTR.system]: SYSTEM,
        [ATTR.operationType]: 'create',
        [ATTR.operationName]: 'addBulk',
        [ATTR.destination]: def.queue,
        [ATTR.messageId]: jobId,
        [ATTR.clientId]: replica,
      },
    },
    trace.setSpan(ROOT_CONTEXT, root),
  );
  return { root, create };
}

/** The job options of a traced occurrence: its `create` span's context in `telemetry.metadata`. */
export function carry<T extends object>(opts: T, spans: OccurrenceTrace | undefined): T {
  return spans ? withSpanContext(opts, spans.create) : opts;
}

/** The adds are done: each job's `create` span ends; a job BullMQ refused ends its trace in error. */
export function added(
  items: readonly ClaimedItem[],
  refused: readonly { tag: ClaimedItem; err: unknown }[],
): void {
  for (const { tag, err } of refused) failed([tag], err, 'refused');
  for (const item of items) item.trace?.create.end();
}

/**
 * The enqueue or the completion failed: the occurrences are claimed again when their lease lapses (a
 * new trace, then). Their traces end here, in error.
 */
export function failed(items: readonly ClaimedItem[], err: unknown, outcome = 'retried'): void {
  for (const item of items) {
    const spans = item.trace;
    if (!spans) continue;
    item.trace = undefined;
    const status = { code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) };
    if (err instanceof Error) spans.create.recordException(err);
    spans.create.setStatus(status);
    spans.create.end();
    spans.root.setAttribute(ATTR.outcome, outcome);
    spans.root.setStatus(status);
    spans.root.end();
  }
}

/**
 * A claim's completion is written: the trace of the occurrence it enqueued ends (`enqueued`), and each
 * occurrence it recorded as not run (missed, or coalesced into another's run) leaves a span of its
 * own with the reason, the root of its own trace (the newest `MAX_NOT_RUN_SPANS` of them).
 */
export function completed(item: ClaimedItem, def: ScheduleFacts, replica: string): void {
  const { plan } = item;
  const spans = item.trace;
  if (spans) {
    item.trace = undefined;
    spans.root.setAttribute(ATTR.outcome, 'enqueued');
    if (plan.coalesceInto) spans.root.setAttribute(ATTR.coalescedCount, plan.coalesceInto.count);
    spans.root.end();
  }
  if (plan.missed.length === 0 && !plan.coalesced) return;
  const t = tracer();
  const coalesced = plan.coalesced;
  // one span each, until one shows tracing is off (the first, then: nothing more is made for the rest)
  const span = (fireAt: number, outcome: string, reason: string): boolean =>
    notRunSpan(t, def.name, item.claimedAt, {
      [ATTR.scheduleId]: def.id,
      [ATTR.scheduleName]: def.name,
      [ATTR.destination]: def.queue,
      [ATTR.fireAt]: fireAt,
      [ATTR.kind]: 'scheduled',
      [ATTR.replica]: replica,
      [ATTR.claimedAt]: item.claimedAt,
      [ATTR.outcome]: outcome,
      [ATTR.reason]: reason,
      ...(reason === 'coalesced' &&
        coalesced && { [ATTR.coalescedBy]: coalesced.cause, [ATTR.standIn]: coalesced.standIn }),
    });
  const { missed } = plan;
  for (let i = Math.max(0, missed.length - MAX_NOT_RUN_SPANS); i < missed.length; i++) {
    if (!span(missed[i]!.fireAt, 'missed', missed[i]!.reason)) return;
  }
  if (!coalesced) return;
  // the newest coalesced occurrences, then the one they were coalesced at if not among them
  const { fireAts } = coalesced;
  let among = false;
  for (let i = Math.max(0, fireAts.length - MAX_NOT_RUN_SPANS); i < fireAts.length; i++) {
    if (fireAts[i] === coalesced.fireAt) among = true;
    if (!span(fireAts[i]!, 'skipped', 'coalesced')) return;
  }
  if (!among) span(coalesced.fireAt, 'skipped', 'coalesced');
}

/**
 * One occurrence that did not run: a `fire` span of its own, the root of its own trace, with `attrs`.
 * False when tracing is off (no tracer provider: nothing more is to be made).
 */
function notRunSpan(t: Tracer, name: string, claimedAt: number, attrs: Attributes): boolean {
  const span = t.startSpan(`fire ${name}`, { root: true, startTime: claimedAt });
  if (span.isRecording()) span.setAttributes(attrs);
  span.end();
  return isSpanContextValid(span.spanContext());
}

/**
 * Occurrences a claim coalesced in Redis while their schedule was parked (its previous job still
 * waiting; park.ts): each leaves a `skipped` span of its own, as one coalesced by the fire loop does
 * (the newest `MAX_NOT_RUN_SPANS` of a claim). `defOf`: the schedule's facts when this replica has
 * them (a schedule it never planned is named by its id).
 */
export function coalescedInRedis(
  occurrences: readonly { id: string; fireAt: number }[],
  defOf: (id: string) => ScheduleFacts | undefined,
  replica: string,
  claimedAt: number,
): void {
  const t = tracer();
  for (const o of occurrences.slice(-MAX_NOT_RUN_SPANS)) {
    const def = defOf(o.id);
    const name = def?.name ?? o.id;
    const traced = notRunSpan(t, name, claimedAt, {
      [ATTR.scheduleId]: o.id,
      [ATTR.scheduleName]: name,
      ...(def && { [ATTR.destination]: def.queue }),
      [ATTR.fireAt]: o.fireAt,
      [ATTR.kind]: 'scheduled',
      [ATTR.replica]: replica,
      [ATTR.claimedAt]: claimedAt,
      [ATTR.outcome]: 'skipped',
      [ATTR.reason]: 'coalesced',
      [ATTR.coalescedBy]: 'consumer-behind',
    });
    if (!traced) return;
  }
}
