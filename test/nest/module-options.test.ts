import 'reflect-metadata';
import { type INestApplicationContext, Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { afterEach, describe, expect, it } from 'vitest';
import { BullbeatModule, Cron, Schedule } from '../../nest/index.js';
import { DateTrigger, type RunContext, SchedulerManager } from '../../src/index.js';
import { internalsOf } from '../../src/scheduler/index.js';
import { REDIS_URL, silent, testEnv } from '../scheduler/helpers.js';
import { waitUntil } from '../wait-until.js';
import { CallLog, startNestApp } from './nest-app.js';

let env: ReturnType<typeof testEnv> | undefined;
const apps: INestApplicationContext[] = [];

afterEach(async () => {
  await Promise.allSettled(apps.splice(0).map((app) => app.close()));
  await env?.cleanup();
  env = undefined;
});

/** Settings a real application would read from its configuration module. */
class AppConfig {
  constructor(
    readonly prefix: string,
    readonly queue: string,
  ) {}
}

@Module({ providers: [{ provide: AppConfig, useFactory: () => config }], exports: [AppConfig] })
class ConfigModule {}
let config: AppConfig;

@Injectable()
class Reports {
  @Cron('0 9 * * 1-5', { timezone: 'America/New_York', id: 'weekday-report' })
  async weekday(_ctx: RunContext): Promise<void> {}

  @Schedule(new DateTrigger(Date.UTC(2099, 0, 1)), { name: 'new-century' })
  async once(_ctx: RunContext): Promise<void> {}
}

/** A user service that injects the module's manager. */
@Injectable()
class ScheduleAdmin {
  constructor(readonly scheduler: SchedulerManager) {}
}

describe('BullbeatModule options', () => {
  it('roles: a scheduler-only instance fires, a worker-only instance runs the methods', async () => {
    env = testEnv('nest-roles');
    const common = { prefix: env.prefix, defaultQueue: env.queue };
    const scheduler = await startNestApp('scheduler', { ...common, roles: ['scheduler'] });
    apps.push(scheduler);
    const worker = await startNestApp('worker', { ...common, roles: ['worker'] });
    apps.push(worker);
    expect(internalsOf(scheduler.get(SchedulerManager)).options.role).toBe('scheduler');
    expect(internalsOf(worker.get(SchedulerManager)).options.role).toBe('client');

    await waitUntil(() => worker.get(CallLog).calls.length >= 3, 20_000);
    expect(scheduler.get(CallLog).calls).toEqual([]);
    expect(worker.get(CallLog).calls.every((c) => c.app === 'worker')).toBe(true);
  });

  it('forRootAsync: options from an injected config; @Cron/@Schedule saved under their ids; SchedulerManager injectable', async () => {
    env = testEnv('nest-async');
    config = new AppConfig(env.prefix, env.queue);

    @Module({
      imports: [
        BullbeatModule.forRootAsync({
          imports: [ConfigModule],
          inject: [AppConfig],
          useFactory: (c: AppConfig) => ({
            prefix: c.prefix,
            defaultQueue: c.queue,
            connection: REDIS_URL,
            logger: silent,
            roles: [],
          }),
        }),
      ],
      providers: [Reports, ScheduleAdmin],
    })
    class AppModule {}

    const app = await NestFactory.createApplicationContext(AppModule, { logger: false, abortOnError: false });
    apps.push(app);
    const manager = app.get(ScheduleAdmin).scheduler;
    expect(manager).toBe(app.get(SchedulerManager));
    expect(internalsOf(manager).prefix).toBe(env.prefix);
    expect(internalsOf(manager).options.role).toBe('client');

    const stored = (await manager.list()).map((j) => j.toJSON());
    expect(stored.map((j) => [j.id, j.name, j.queue, j.source, j.spec.type]).sort()).toEqual([
      ['new-century', 'new-century', env.queue, 'code', 'date'],
      ['weekday-report', 'Reports.weekday', env.queue, 'code', 'cron'],
    ]);
    expect(stored.find((j) => j.id === 'weekday-report')?.spec).toMatchObject({
      type: 'cron',
      expression: '0 9 * * 1-5',
      timezone: 'America/New_York',
    });
  });

  it('a bad @Cron expression fails the boot with an error naming the provider method', async () => {
    env = testEnv('nest-bad');

    @Injectable()
    class Broken {
      @Cron('61 * * * *')
      async tick(): Promise<void> {}
    }

    @Module({
      imports: [
        BullbeatModule.forRoot({
          prefix: env.prefix,
          defaultQueue: env.queue,
          connection: REDIS_URL,
          logger: silent,
          roles: [],
        }),
      ],
      providers: [Broken],
    })
    class AppModule {}

    await expect(
      NestFactory.createApplicationContext(AppModule, { logger: false, abortOnError: false }),
    ).rejects.toThrow(
      /^schedule "Broken\.tick": @Cron\(\) on Broken\.tick: cron "61 \* \* \* \*": minute "61": out of range 0-59/,
    );
  });

  it('two decorators on one method without ids fail the boot, asking for ids', async () => {
    env = testEnv('nest-twice');

    @Injectable()
    class Twice {
      @Cron('0 9 * * *')
      @Cron('0 18 * * *')
      async send(): Promise<void> {}
    }

    @Module({
      imports: [
        BullbeatModule.forRoot({
          prefix: env.prefix,
          defaultQueue: env.queue,
          connection: REDIS_URL,
          logger: silent,
          roles: [],
        }),
      ],
      providers: [Twice],
    })
    class AppModule {}

    await expect(
      NestFactory.createApplicationContext(AppModule, { logger: false, abortOnError: false }),
    ).rejects.toThrow(
      'schedule "Twice.send": id: declared by Twice.send and by Twice.send: give each schedule its own id',
    );
  });

  it('roles other than scheduler and worker are refused, naming the setting', async () => {
    env = testEnv('nest-role-typo');
    await expect(
      // @ts-expect-error: a typo a JavaScript user could make
      startNestApp('x', { prefix: env.prefix, defaultQueue: env.queue, roles: ['schedular'] }),
    ).rejects.toThrow('BullbeatModule roles: expected "scheduler" and/or "worker", got "schedular"');
  });
});
