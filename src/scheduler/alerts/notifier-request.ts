import { createHmac } from 'node:crypto';
import type { Delivery, Incident } from '../../store/index.js';
import type { NotifierConfig } from '../contract/index.js';

/** One HTTP request of a delivery. */
export interface NotifierRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** The header carrying a webhook's HMAC-SHA256 signature of the body: `sha256=<hex>`. */
export const SIGNATURE_HEADER = 'x-bullbeat-signature';
/** The header carrying the delivery id (the same on every attempt: receivers dedup by it). */
export const DELIVERY_HEADER = 'x-bullbeat-delivery';

/** `sha256=<hex>` of `body` keyed by `secret`: what a receiver recomputes to check a delivery. */
export function signBody(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** The incident as every notifier's body shows it. */
function incidentBody(incident: Incident) {
  return {
    id: incident.id,
    scheduleId: incident.scheduleId,
    cause: incident.cause,
    occurrence: new Date(incident.occurrence).toISOString(),
    why: incident.why,
    status: incident.status,
    openedAt: new Date(incident.openedAt).toISOString(),
    ...(incident.queue !== undefined && { queue: incident.queue }),
    ...(incident.resolvedAt !== undefined && { resolvedAt: new Date(incident.resolvedAt).toISOString() }),
    ...(incident.resolvedWhy !== undefined && { resolvedWhy: incident.resolvedWhy }),
  };
}

/** One line saying what happened, for chat and paging. */
export function summaryOf(incident: Incident, event: Delivery['event'], deployment: string): string {
  return event === 'opened'
    ? `[${deployment}] ${incident.cause}: schedule "${incident.scheduleId}": ${incident.why}`
    : `[${deployment}] resolved ${incident.cause}: schedule "${incident.scheduleId}": ${incident.resolvedWhy ?? ''}`;
}

/** The request that delivers `delivery` of `incident` to `notifier`. */
export function notifierRequest(
  notifier: NotifierConfig,
  delivery: Delivery,
  incident: Incident,
  deployment: string,
): NotifierRequest {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    [DELIVERY_HEADER]: delivery.id,
    'user-agent': 'bullbeat-alerts',
  };
  let body: string;
  switch (notifier.kind) {
    case 'slack': {
      const icon = delivery.event === 'opened' ? ':rotating_light:' : ':white_check_mark:';
      body = JSON.stringify({ text: `${icon} ${summaryOf(incident, delivery.event, deployment)}` });
      break;
    }
    case 'pagerduty':
      body = JSON.stringify({
        routing_key: notifier.routingKey,
        event_action: delivery.event === 'opened' ? 'trigger' : 'resolve',
        dedup_key: `bullbeat:${deployment}:${incident.id}`,
        ...(delivery.event === 'opened' && {
          payload: {
            summary: summaryOf(incident, 'opened', deployment).slice(0, 1024),
            source: `bullbeat:${deployment}`,
            severity: 'error',
            component: incident.scheduleId,
            class: incident.cause,
            ...(incident.queue !== undefined && { group: incident.queue }),
            custom_details: incidentBody(incident),
          },
        }),
      });
      break;
    default:
      body = JSON.stringify({
        deliveryId: delivery.id,
        event: delivery.event,
        deployment,
        incident: incidentBody(incident),
      });
      headers['x-bullbeat-event'] = delivery.event;
      if (notifier.secret !== undefined) headers[SIGNATURE_HEADER] = signBody(notifier.secret, body);
  }
  return { url: notifier.url, headers, body };
}
