import { type ZodType, z } from 'zod';
import * as s from './api-schemas.js';
import { backfillSchema } from './backfill-route.js';
import { bulkPaths } from './openapi-bulk.js';
import { revertBody, revertSchema } from './revert-route.js';
import { createSchema, pauseSchema, resumeSchema, updateSchema } from './schedule-input.js';
import { triggerSchema } from './trigger-input.js';

type Json = Record<string, unknown>;

// `io: 'input'`: response objects may gain fields (not `additionalProperties: false`); request bodies
// keep theirs, as the schemas are strict objects.
const schema = (t: ZodType): Json =>
  z.toJSONSchema(t, { target: 'draft-2020-12', unrepresentable: 'any', io: 'input' }) as Json;
export const input = schema;

/** A built-in trigger, as `POST /api/schedules` takes it (the triggers' own JSON). */
const TRIGGER: Json = {
  oneOf: [
    {
      type: 'object',
      required: ['type', 'expression'],
      properties: {
        type: { const: 'cron' },
        expression: { type: 'string', examples: ['0 9 * * 1-5'] },
        timezone: { type: 'string', description: 'IANA zone; default UTC' },
        jitter: { type: 'number', description: 'seconds' },
      },
    },
    {
      type: 'object',
      required: ['type', 'seconds'],
      properties: { type: { const: 'interval' }, seconds: { type: 'number' }, jitter: { type: 'number' } },
    },
    {
      type: 'object',
      required: ['type', 'at'],
      properties: {
        type: { const: 'date' },
        at: { type: ['number', 'string'], description: 'epoch ms, or an ISO date-time read in `timezone`' },
        timezone: { type: 'string' },
      },
    },
    {
      type: 'object',
      required: ['type', 'triggers', 'logic'],
      properties: {
        type: { const: 'compound' },
        triggers: { type: 'array' },
        logic: { enum: ['or', 'and'] },
      },
    },
    {
      type: 'object',
      required: ['type', 'trigger', 'except'],
      description: 'a trigger minus its exclusions (what the `except` field makes)',
      properties: {
        type: { const: 'except' },
        trigger: { type: 'object' },
        except: {
          type: 'array',
          items: { type: ['string', 'object'] },
          description: 'dates 2026-12-25, ranges 2026-12-24..2026-12-26, cron expressions, triggers',
        },
        timezone: { type: 'string', description: "IANA zone; default the trigger's" },
      },
    },
  ],
};

const withTrigger = (body: Json, required: boolean): Json => {
  const properties = { ...(body.properties as Json), trigger: TRIGGER };
  const req = ((body.required as string[] | undefined) ?? []).filter((k) => k !== 'trigger');
  return { ...body, properties, required: required ? [...req, 'trigger'] : req };
};

export const ok = (description: string, t: ZodType, status = '200'): Json => ({
  [status]: { description, content: { 'application/json': { schema: schema(t) } } },
});
export const errors = (...codes: number[]): Json =>
  Object.fromEntries(
    codes.map((code) => [
      String(code),
      {
        description: ERROR_TEXT[code] ?? 'error',
        content: { 'application/json': { schema: schema(s.errorBody) } },
      },
    ]),
  );
const ERROR_TEXT: Record<number, string> = {
  400: 'bad input: `error` and `field` name what was wrong',
  403: 'a write without the CSRF token (cookie sessions, basic auth, open mode) or from another origin',
  404: 'no schedule with that id',
  405: 'the dashboard is read-only',
  409: 'a schedule defined in code cannot be changed here; on create: the id exists (send `replace: true`)',
};
const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };
export const query = (name: string, description: string, type = 'string') => ({
  name,
  in: 'query',
  required: false,
  description,
  schema: { type },
});
export const write = (op: Json): Json => ({ ...op, security: WRITE_SECURITY });
const WRITE_SECURITY = [{ bearer: [] }, { session: [], csrf: [] }, { basic: [], csrf: [] }];

/**
 * The OpenAPI 3.1 description of the JSON API, served at `/api/openapi.json`. Paths are relative to
 * the dashboard's own path (`servers[0].url` is `./api`, so it holds wherever the dashboard is mounted).
 */
export function openApiDocument(version: string): Json {
  return {
    openapi: '3.1.0',
    info: {
      title: 'bullbeat dashboard API',
      version,
      description:
        'Schedules, their runs and stats. Writes made with a session cookie, basic auth or in open mode must ' +
        'send the CSRF token (the `bb_csrf` cookie in `X-CSRF-Token`); bearer-token requests need none.',
    },
    servers: [{ url: './api' }],
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'BULLBEAT_DASHBOARD_TOKEN' },
        basic: { type: 'http', scheme: 'basic' },
        session: { type: 'apiKey', in: 'cookie', name: 'bb_session', description: 'after /login' },
        csrf: { type: 'apiKey', in: 'header', name: 'X-CSRF-Token', description: 'the bb_csrf cookie' },
      },
    },
    security: [{ bearer: [] }, { session: [] }, { basic: [] }],
    paths: {
      ...bulkPaths(),
      '/schedules': {
        get: {
          summary: 'List schedules, paged and searched on the server',
          parameters: [
            query('q', 'search in name, id and queue'),
            query('status', 'active, paused, completed, cancelled or errored'),
            query('selector', 'a label selector: tenant=acme,team!=ops (docs/labels.md)'),
            query('queue', 'only this queue'),
            query('offset', 'default 0', 'integer'),
            query('limit', 'default the page size, at most 500', 'integer'),
            query(
              'cursor',
              'page every schedule in store order instead (fast at a million, on a cluster too): "0" first, then the cursor the previous page answered; not with selector or offset',
            ),
            query(
              'order',
              'with cursor: "store" (default) or "name" (by name then id, from the name index: each page reads at most limit entries per partition)',
            ),
          ],
          responses: { ...ok('a page of schedules', s.schedulePage), ...errors(400) },
        },
        post: write({
          summary: 'Create a runtime schedule (a queue target on a built-in trigger)',
          requestBody: {
            required: true,
            content: { 'application/json': { schema: withTrigger(input(createSchema), true) } },
          },
          responses: {
            ...ok('replaced (`replace: true` and a runtime schedule had this id)', s.scheduleView),
            ...ok('created', s.scheduleView, '201'),
            ...errors(400, 403, 405, 409),
          },
        }),
      },
      '/schedules/{id}': {
        get: {
          summary: 'One schedule',
          parameters: [idParam],
          responses: { ...ok('the schedule', s.scheduleView), ...errors(404) },
        },
        patch: write({
          summary: 'Change a runtime schedule (fields not given are kept)',
          parameters: [idParam],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: withTrigger(input(updateSchema), false) } },
          },
          responses: { ...ok('the schedule as changed', s.scheduleView), ...errors(400, 403, 404, 405, 409) },
        }),
        delete: write({
          summary: 'Remove a schedule',
          parameters: [idParam],
          responses: { ...ok('removed', s.removeBody), ...errors(403, 404, 405) },
        }),
      },
      '/schedules/{id}/runs': {
        get: {
          summary: 'The occurrence history, newest first',
          parameters: [idParam, query('limit', 'default 100, at most 1000', 'integer')],
          responses: { ...ok('runs', s.runsBody), ...errors(400, 404) },
        },
      },
      '/schedules/{id}/history': {
        get: {
          summary:
            'Who changed the schedule, what and when (its audit trail), newest first; a removed one while its trail is kept',
          parameters: [
            idParam,
            query('limit', 'default 50, at most 500', 'integer'),
            query('before', 'an entry id: only older entries (the next page)'),
          ],
          responses: { ...ok('the audit trail', s.historyBody), ...errors(400, 404) },
        },
      },
      '/schedules/{id}/pause': {
        post: write({
          summary: 'Pause, with an optional note (why; who and when are kept beside it until resumed)',
          parameters: [idParam],
          requestBody: {
            required: false,
            content: { 'application/json': { schema: input(pauseSchema) } },
          },
          responses: {
            ...ok('`changed` is false when it was not active', s.actionBody),
            ...errors(403, 404, 405),
          },
        }),
      },
      '/schedules/{id}/resume': {
        post: write({
          summary:
            'Resume (its next fire time is recomputed); `policy` runs what was due while paused: skip, once or all',
          parameters: [idParam],
          requestBody: {
            required: false,
            content: { 'application/json': { schema: input(resumeSchema) } },
          },
          responses: {
            ...ok('`changed` is false when it was not paused', s.actionBody),
            ...errors(403, 404, 405),
          },
        }),
      },
      '/schedules/{id}/trigger': {
        post: write({
          summary:
            "Enqueue one manual run now; data and jobOptions override the schedule's for this run (recorded)",
          parameters: [idParam],
          requestBody: { content: { 'application/json': { schema: input(triggerSchema) } } },
          responses: { ...ok('enqueued', s.triggerBody, '202'), ...errors(400, 403, 404, 405) },
        }),
      },
      '/schedules/{id}/revert': {
        post: write({
          summary:
            'Put a runtime schedule back to a definition from its audit trail (default: before its last change), as an audited update',
          parameters: [idParam],
          requestBody: { content: { 'application/json': { schema: input(revertSchema) } } },
          responses: {
            ...ok('reverted (changed: false when it was already so)', revertBody),
            ...errors(400, 403, 404, 405),
          },
        }),
      },
      '/schedules/{id}/backfill': {
        post: write({
          summary:
            'Backfill: run the occurrences of [from, to) that nothing ran (Temporal: Backfill); dryRun lists them only',
          parameters: [idParam],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: input(backfillSchema) } },
          },
          responses: {
            ...ok('dry run: the occurrences and what would become of each', s.backfillBody),
            ...ok('being enqueued at the bounded rate', s.backfillBody, '202'),
            ...errors(400, 403, 404, 405),
          },
        }),
      },
      '/schedules/{id}/why': {
        get: {
          summary:
            'Why an occurrence did or did not run (the chain trigger → claim → enqueue → worker → outcome)',
          parameters: [idParam, query('at', 'an ISO 8601 instant or epoch ms; default now')],
          responses: { ...ok('the answer', s.whyBody), ...errors(400, 404) },
        },
      },
      '/agenda': {
        get: {
          summary: 'Every fire instant of the next window, all schedules merged in time order',
          parameters: [
            query('next', 'the window: 30m, 24h, 7d (at most 31d; default 24h)'),
            query('queue', 'only this queue'),
            query('selector', 'only schedules whose labels match: tenant=acme'),
          ],
          responses: { ...ok('the agenda', s.agendaBody), ...errors(400) },
        },
      },
      '/calendars': {
        get: {
          summary:
            'The named calendars: current version, dates and rules, the schedules using each, the next excluded days',
          responses: ok('the calendars', s.calendarsBody),
        },
      },
      '/calendars/{name}': {
        get: {
          summary: 'One named calendar, the schedules using it and its next excluded days',
          parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { ...ok('the calendar', s.calendarBody), ...errors(404) },
        },
      },
      '/groups': {
        get: {
          summary: 'Every group the schedules name, with its runs going on and waiting now',
          responses: ok('the groups', s.groupsBody),
        },
      },
      '/fleet': {
        get: {
          summary: 'The processes of the deployment and the health of its schedules',
          responses: ok('the fleet', s.fleetBody),
        },
      },
      '/alerts': {
        get: {
          summary:
            'Incidents (late, missed, failed, overdue, stuck, no worker, no scheduler) newest first, with their deliveries; notifiers are configured by the operator only, never through the API',
          parameters: [
            query('open', '1: only the open incidents'),
            query(
              'selector',
              'only the incidents of the schedules whose labels match this selector (tenant=acme,team!=ops); 400 naming `selector` when it does not parse',
            ),
            query('schedule', "only this schedule's incidents"),
          ],
          responses: ok('the incidents', s.alertsBody),
        },
      },
      '/stats': {
        get: {
          summary: 'Schedules by status and runs by outcome over the deployment',
          responses: ok('stats', s.statsBody),
        },
      },
      '/preview': {
        get: {
          summary: 'A trigger in words and its next fire times',
          parameters: [
            query('cron', 'a cron expression'),
            query('interval', 'seconds'),
            query('date', 'an ISO date-time or epoch ms'),
            query('tz', 'IANA zone of cron or date; default UTC'),
            query('n', 'how many times, 1 to 50 (default 5)', 'integer'),
            query(
              'except',
              'exclusions, one per line: dates, date ranges, cron expressions (as the `except` option)',
            ),
          ],
          responses: { ...ok('the preview', s.previewBody), ...errors(400) },
        },
      },
      '/queues': {
        get: { summary: 'The queues shown in Bull Board', responses: ok('queue names', s.queuesBody) },
      },
      '/openapi.json': {
        get: {
          summary: 'This description',
          responses: { '200': { description: 'OpenAPI 3.1', content: { 'application/json': {} } } },
        },
      },
    },
  };
}
