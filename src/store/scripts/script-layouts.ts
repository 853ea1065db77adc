import { layout } from './script-layout.js';

// Every store script's KEYS and ARGV in order, slot by slot, each named as its file's header names it
// (`lua/<file>.lua`); `test/store/script-layouts.test.ts` reads each header against its layout, so a
// header and its caller cannot drift apart.

/** The four audit ARGV of a change script (includes/audit): limit, actor, source, onBehalfOf. */
const AUDIT = ['auditLimit', 'auditActor', 'auditSource', 'auditOnBehalfOf'] as const;

export const UPSERT = layout(
  'upsert-9',
  ['schedules', 'due', 'inflight', 'state', 'resched', 'completed', 'claim', 'audit', 'counts'],
  [
    'id',
    'definition',
    'fingerprint',
    'next',
    'now',
    'source',
    'keepCompleted',
    'createdAt',
    ...AUDIT,
    'keepsStreak',
    'labels',
  ],
);

export const CLAIM = layout(
  'claim-6',
  ['due', 'inflight', 'claim', 'schedules', 'state', 'totals'],
  [
    'batch',
    'leaseMs',
    'token',
    'aheadMs',
    'replica',
    'horizon',
    'longestSleep',
    'claimedWithin',
    'imminent',
    'clockMs',
  ],
);

export const RENEW_CLAIMS = layout('renew-claims-2', ['inflight', 'claim'], ['leaseMs', 'token', 'clockMs'], {
  item: ['ids'],
});

export const COMPLETE = layout(
  'complete-n',
  ['due', 'inflight', 'claim', 'state', 'resched', 'completed', 'totals'],
  ['historyLimit', 'now', 'token', 'shared'],
  {
    itemKeys: ['runs', 'runidx', 'counts'],
    item: ['id', 'fireAt', 'next', 'missed', 'coalesced', 'ran', 'enqueued', 'records'],
  },
);

export const SET_STATUS = layout(
  'set-status-6',
  ['state', 'due', 'inflight', 'resched', 'claim', 'audit'],
  ['id', 'from', 'to', 'next', ...AUDIT, 'op'],
);

export const REMOVE = layout(
  'remove-13',
  [
    'schedules',
    'due',
    'inflight',
    'claim',
    'state',
    'resched',
    'completed',
    'runs',
    'runidx',
    'counts',
    'errors',
    'totals',
    'audit',
  ],
  ['id', 'requiredStatus', ...AUDIT, 'trailKept'],
);

export const MARK_ERRORED = layout(
  'mark-errored-9',
  ['state', 'due', 'inflight', 'claim', 'resched', 'completed', 'errors', 'totals', 'audit'],
  ['id', 'claim', 'errorJson', 'now', ...AUDIT, 'reason', 'occurrence'],
);

export const CLEAR_ERROR = layout(
  'clear-error-6',
  ['state', 'due', 'inflight', 'completed', 'errors', 'audit'],
  ['id', 'next', 'now', ...AUDIT],
);

export const MERGE_RUN = layout(
  'merge-run-4',
  ['runs', 'runidx', 'counts', 'totals'],
  ['field', 'score', 'scheduleId', 'historyLimit', 'counters', 'removes', 'pairs'],
);

export const MANUAL_RUN = layout(
  'manual-run-5',
  ['runs', 'runidx', 'counts', 'totals', 'audit'],
  ['field', 'score', 'scheduleId', 'historyLimit', ...AUDIT, 'jobId', 'pairs'],
);

export const FOREIGN_OUTCOMES = layout(
  'foreign-outcomes-2',
  ['totals', 'schedules'],
  ['base', 'historyLimit'],
  { item: ['scheduleId', 'field', 'score', 'jobId', 'counters', 'kind', 'pairs'] },
);

export const PAUSE_NOTE = layout('pause-note-2', ['state', 'notes'], ['id', 'noteJson']);

export const PAUSE = layout(
  'pause-5',
  ['state', 'due', 'resched', 'notes', 'audit'],
  ['id', 'noteJson', 'noteText', ...AUDIT],
);

export const BACKFILL_TAKE = layout(
  'backfill-take-11',
  [
    'runs',
    'backfills',
    'paused',
    'owedRuns',
    'due',
    'claim',
    'schedules',
    'state',
    'notes',
    'audit',
    'backfillOverrides',
  ],
  [
    'id',
    'take',
    'ledgerExpiry',
    'owedMiddle',
    ...AUDIT,
    'from',
    'to',
    'only',
    'overrides',
    'overrideId',
    'override',
  ],
  { item: ['fireTime', 'msAfterNow'] },
);

export const RESUME = layout(
  'resume-10',
  ['state', 'due', 'inflight', 'resched', 'claim', 'backfills', 'paused', 'owedRuns', 'notes', 'audit'],
  ['id', 'next', 'policy', 'ledgerExpiry', 'msAfterNow', 'owedOverlap', ...AUDIT],
  { item: ['candidate'] },
);

export const OWED_DONE = layout(
  'owed-done-5',
  ['runs', 'runidx', 'owedRuns', 'schedules', 'backfillOverrides'],
  ['scheduleId', 'historyLimit'],
  { item: ['owedMember', 'recordField', 'fireTime', 'pairs'] },
);

export const OWED_TAKE = layout('owed-take-2', ['owedRuns', 'schedules'], ['lease', 'most']);

export const OWED_RELEASE = layout('owed-release-3', ['owedRuns', 'backfills', 'backfillOverrides'], [], {
  item: ['owedMember', 'fireTime'],
});

export const OWED_KEEP = layout('owed-keep-1', ['owedRuns'], ['lease'], { item: ['owedMember', 'given'] });

export const RETAKE = layout('retake-3', ['taken', 'rec', 'runs'], ['field', 'kept']);

export const RENEW_LEASE = layout('renew-lease-1', ['lease'], ['leaseId', 'ttl', 'clockMs']);

export const RENEW_RUN = layout('renew-run-2', ['lease', 'cancelled'], ['leaseId', 'ttl', 'clockMs']);

export const TRY_GROUP = layout(
  'try-group-4',
  ['group', 'groupQueue', 'groupWaiters', 'groupTicket'],
  ['leaseId', 'ttl', 'max', 'overflow', 'clockMs'],
);

export const LEAVE_GROUP_QUEUE = layout('leave-group-queue-2', ['groupQueue', 'groupWaiters'], ['leaseId']);

export const INDEX_GROUPS = layout('index-groups-2', ['schedules', 'groupsIndexed'], ['last'], {
  item: ['ids'],
});

export const INDEX_EXPECTS = layout('index-expects-2', ['schedules', 'expectsIndexed'], ['last'], {
  item: ['ids'],
});

export const REPAIR_INDEX = layout('repair-index-3', ['schedules', 'queues', 'state'], [], {
  item: ['entry'],
});

export const LIST_COUNTS = layout('list-counts-1', ['schedules'], []);

export const LIST_HEADS = layout('list-heads-1', ['schedules'], ['from', 'n']);

export const ENQUEUED_RECORDS = layout('enqueued-records-1', ['schedules'], ['base', 'depth'], {
  item: ['id'],
});

export const FIRE_BUDGET = layout('fire-budget-1', ['fireBudget'], ['cap', 'lead'], { item: ['instant'] });

export const UNSTAGE = layout(
  'unstage-2',
  ['delayed', 'events'],
  ['keyPrefix', 'jobIdPrefix', 'window', 'fireTime', 'offset'],
);

export const UNSTARTED_SINCE = layout('unstarted-since-n', [], [], { itemKeys: ['job'] });

export const FINISHED_JOBS = layout(
  'finished-jobs-1',
  ['events'],
  ['keyPrefix', 'after', 'count', 'jobIdPrefix'],
);

export const HANDOVER_SCHEDULER = layout(
  'handover-scheduler-2',
  ['repeat', 'scheduler'],
  ['schedulerId', 'instant'],
);

export const START_RUNS = layout(
  'start-runs-1',
  ['totals'],
  ['base', 'leaseTtl', 'historyLimit', 'cancelChannel', 'markKept'],
  {
    item: ['scheduleId', 'leaseId', 'overlap', 'cap', 'jobId', 'fireTime', 'flags', 'startMark', 'facts'],
  },
);

export const FINISH_RUNS = layout(
  'finish-runs-5',
  ['totals', 'state', 'due', 'resched', 'notes'],
  ['base', 'historyLimit', 'wakeChannel', 'auditKept'],
  {
    item: [
      'scheduleId',
      'leaseId',
      'fireTime',
      'flags',
      'counters',
      'fencingToken',
      'policy',
      'pause',
      'patch',
      'removes',
    ],
  },
);

export const INCIDENT = layout(
  'incident-7',
  ['open', 'closed', 'incidents', 'recent', 'seq', 'outbox', 'deliveries'],
  ['op', 'slot', 'occurrence', 'incident', 'notifiers', 'keep'],
);

export const OUTBOX_TAKE = layout(
  'outbox-take-2',
  ['outbox', 'deliveries'],
  ['lease', 'most', 'notifiers', 'clockMs'],
);

export const OUTBOX_DONE = layout(
  'outbox-done-3',
  ['outbox', 'deliveries', 'stats'],
  ['id', 'token', 'outcome', 'json', 'retry', 'notifier'],
);

/** Every layout, one per script file. */
export const SET_FORMAT = layout('set-format-1', ['format'], ['from', 'to']);

export const RELEASE_QUEUE = layout('release-queue-1', ['owner'], ['prefix']);

export const COMPACT_AUDIT = layout('compact-audit-3', ['audit', 'auditFirst', 'schedules'], ['id']);

export const LAYOUTS = [
  UPSERT,
  CLAIM,
  RENEW_CLAIMS,
  COMPLETE,
  SET_STATUS,
  REMOVE,
  MARK_ERRORED,
  CLEAR_ERROR,
  MERGE_RUN,
  MANUAL_RUN,
  FOREIGN_OUTCOMES,
  PAUSE_NOTE,
  PAUSE,
  BACKFILL_TAKE,
  RESUME,
  OWED_DONE,
  OWED_TAKE,
  OWED_RELEASE,
  OWED_KEEP,
  RETAKE,
  RENEW_LEASE,
  RENEW_RUN,
  TRY_GROUP,
  LEAVE_GROUP_QUEUE,
  UNSTAGE,
  UNSTARTED_SINCE,
  FINISHED_JOBS,
  FIRE_BUDGET,
  INDEX_GROUPS,
  INDEX_EXPECTS,
  REPAIR_INDEX,
  LIST_COUNTS,
  LIST_HEADS,
  ENQUEUED_RECORDS,
  HANDOVER_SCHEDULER,
  START_RUNS,
  FINISH_RUNS,
  INCIDENT,
  OUTBOX_TAKE,
  OUTBOX_DONE,
  SET_FORMAT,
  RELEASE_QUEUE,
  COMPACT_AUDIT,
] as const;
