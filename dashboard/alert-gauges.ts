import { Counter, Gauge, type Registry } from 'prom-client';
import { type AlertsReport, INCIDENT_CAUSES } from '../src/store/index.js';

/**
 * The alerts' metrics on the dashboard's `/metrics`, read from Redis at scrape time: open incidents
 * per cause, delivery attempts per notifier and outcome (sent, retry, failed: given up), and the
 * deliveries waiting in the outbox. Labels are bounded by the causes and the operator's notifiers.
 */
export function registerAlertGauges(registry: Registry, read: () => Promise<AlertsReport>): void {
  const registers = [registry];
  new Gauge({
    name: 'bullbeat_incidents_open',
    help: 'Open incidents per cause (late, missed, failed, overdue, stuck, no-worker, no-scheduler)',
    labelNames: ['cause'],
    registers,
    async collect() {
      const { incidents } = await read();
      for (const cause of INCIDENT_CAUSES) {
        this.set({ cause }, incidents.filter((i) => i.cause === cause && i.status === 'open').length);
      }
    },
  });
  new Counter({
    name: 'bullbeat_alert_deliveries_total',
    help: 'Delivery attempts to notifiers, by notifier and outcome (sent; retry: failed and retried; failed: given up)',
    labelNames: ['notifier', 'outcome'],
    registers,
    async collect() {
      this.reset();
      for (const [notifier, byOutcome] of Object.entries((await read()).deliveryCounts)) {
        for (const [outcome, n] of Object.entries(byOutcome)) this.inc({ notifier, outcome }, n);
      }
    },
  });
  new Gauge({
    name: 'bullbeat_alert_outbox',
    help: 'Deliveries waiting in the outbox (due, being sent, or waiting for a retry)',
    registers,
    async collect() {
      this.set((await read()).outbox);
    },
  });
}
