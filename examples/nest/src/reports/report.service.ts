import { Injectable, Logger } from '@nestjs/common';
import type { RunContext } from 'bullbeat';
import { Cron } from 'bullbeat/nest';
// A value import, not `import type`: Nest injects by the class that decorator metadata records.
import { Mailer } from '../mail/mailer.service.js';

/** `REPORT_CRON='* * * * * *'` (six fields: seconds first) fires every second, to watch it run. */
const REPORT_CRON = process.env.REPORT_CRON ?? '0 7 * * 1-5';

@Injectable()
export class ReportService {
  private readonly logger = new Logger(ReportService.name);

  constructor(private readonly mailer: Mailer) {}

  /**
   * Weekdays at 07:00, Paris time. A scheduler process enqueues each occurrence once onto the
   * `reports` queue; a worker process runs this method on its own instance of the service.
   */
  @Cron(REPORT_CRON, { id: 'daily-report', timezone: 'Europe/Paris', queue: 'reports' })
  async dailyReport(ctx: RunContext): Promise<void> {
    const fireAt = new Date(ctx.fireAt).toISOString();
    await this.mailer.send('team@example.com', `report for ${fireAt}`);
    this.logger.log(`daily report sent: occurrence ${fireAt} (${ctx.kind}), pid ${process.pid}`);
  }
}
