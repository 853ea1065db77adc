import { Module } from '@nestjs/common';
import { BullbeatModule, type BullbeatRole } from 'bullbeat/nest';
import { Mailer } from './mail/mailer.service.js';
import { ReportService } from './reports/report.service.js';

/**
 * Which roles this process runs: `BULLBEAT_ROLES=scheduler`, `=worker`, or both (the default).
 * Every process may run the scheduler: each occurrence is still enqueued once.
 */
function roles(): BullbeatRole[] {
  const given = process.env.BULLBEAT_ROLES;
  return given ? (given.split(',').map((r) => r.trim()) as BullbeatRole[]) : ['scheduler', 'worker'];
}

@Module({
  imports: [
    BullbeatModule.forRoot({
      // Redis: REDIS_URL, else redis://127.0.0.1:6379. Every process of the application uses the
      // same prefix: that is what makes them one deployment.
      prefix: process.env.BULLBEAT_PREFIX ?? 'app',
      roles: roles(),
    }),
  ],
  providers: [Mailer, ReportService],
})
export class AppModule {}
