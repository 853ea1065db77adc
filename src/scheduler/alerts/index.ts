export { AlertService, type AlertServiceDeps } from './alert-service.js';
export { type AlertTimers, processTimers, repeatEvery } from './alert-timers.js';
export { DELIVERY_DEFAULTS, DeliverySender, type DeliveryTuning } from './delivery-sender.js';
export { type Breach, breaches, resolvedWhy, type ScheduleFacts } from './incident-rules.js';
export { CHECK_EVERY_MS, IncidentWatch } from './incident-watch.js';
export { DELIVERY_HEADER, notifierRequest, SIGNATURE_HEADER, signBody } from './notifier-request.js';
