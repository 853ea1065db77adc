import 'reflect-metadata';
import { type INestApplicationContext, Injectable, Module, type Provider } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { BullbeatModule, type BullbeatModuleOptions, Every } from '../../nest/index.js';
import type { RunContext } from '../../src/index.js';
import { REDIS_URL, silent } from '../scheduler/helpers.js';

/** One call of a scheduled method, as the injected `CallLog` saw it. */
export interface Call {
  scheduleId: string;
  fireAt: number;
  /** The label of the application instance whose provider ran it. */
  app: string;
}

/** The label of one application instance (a value provider). */
export class AppLabel {
  constructor(readonly value: string) {}
}

/** A plain injectable service: the scheduled provider gets it from Nest's container. */
@Injectable()
export class CallLog {
  readonly calls: Call[] = [];

  constructor(readonly label: AppLabel) {}

  record(ctx: RunContext): void {
    this.calls.push({ scheduleId: ctx.scheduleId, fireAt: ctx.fireAt, app: this.label.value });
  }
}

/** The scheduled provider: `@Every(0.2)`, recording each call through the injected `CallLog`. */
@Injectable()
export class Heartbeat {
  constructor(readonly log: CallLog) {}

  @Every(0.2, { misfire: 'all' })
  async beat(ctx: RunContext): Promise<void> {
    this.log.record(ctx);
  }
}

/**
 * A Nest application context (no HTTP) with `BullbeatModule.forRoot(options)` and the `Heartbeat`
 * provider, on the test's Redis, prefix and queue. Each call builds a separate container: a
 * separate manager, worker and `CallLog`, as a second process of the same application would.
 */
export async function startNestApp(
  label: string,
  options: BullbeatModuleOptions,
  providers: Provider[] = [CallLog, Heartbeat],
): Promise<INestApplicationContext> {
  @Module({
    imports: [
      BullbeatModule.forRoot({
        connection: REDIS_URL,
        logger: silent,
        worker: { logger: silent },
        ...options,
      }),
    ],
    providers: [{ provide: AppLabel, useValue: new AppLabel(label) }, ...providers],
  })
  class AppModule {}

  return NestFactory.createApplicationContext(AppModule, { logger: false, abortOnError: false });
}
