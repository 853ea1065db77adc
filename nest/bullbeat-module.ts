import type { DynamicModule, Provider } from '@nestjs/common';
import { DiscoveryModule, DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { SchedulerManager } from '../src/index.js';
import type {
  BullbeatModuleAsyncOptions,
  BullbeatModuleOptions,
  ResolvedBullbeatModuleOptions,
} from './bullbeat-module-options.js';
import { BullbeatRuntime } from './bullbeat-runtime.js';
import { resolveModuleOptions } from './resolve-module-options.js';

/** The injection token of the options given to `forRoot()` or made by `forRootAsync()`. */
export const BULLBEAT_MODULE_OPTIONS = Symbol.for('bullbeat:module-options');
const RESOLVED_OPTIONS = Symbol.for('bullbeat:resolved-module-options');

/**
 * bullbeat for NestJS. Import it once, in the root module: `BullbeatModule.forRoot({ prefix: 'app' })`.
 * When the application boots it finds the `@Cron()` / `@Every()` / `@Schedule()` methods of every
 * singleton provider and controller, saves their schedules in Redis and starts the configured roles
 * (scheduler and worker by default); `app.close()` (or a signal, with `enableShutdownHooks()`) stops
 * them. The module is global: inject `SchedulerManager` anywhere to list, pause or trigger schedules.
 */
// biome-ignore lint/complexity/noStaticOnlyClass: Nest identifies a module by its class
export class BullbeatModule {
  static forRoot(options: BullbeatModuleOptions = {}): DynamicModule {
    return BullbeatModule.build([{ provide: BULLBEAT_MODULE_OPTIONS, useValue: options }], []);
  }

  static forRootAsync(options: BullbeatModuleAsyncOptions): DynamicModule {
    return BullbeatModule.build(
      [
        {
          provide: BULLBEAT_MODULE_OPTIONS,
          useFactory: options.useFactory,
          inject: options.inject ?? [],
        },
      ],
      options.imports ?? [],
    );
  }

  // biome-ignore lint/suspicious/noExplicitAny: Nest's module references are untyped
  private static build(optionsProviders: Provider[], imports: any[]): DynamicModule {
    return {
      global: true,
      module: BullbeatModule,
      imports: [DiscoveryModule, ...imports],
      providers: [
        ...optionsProviders,
        {
          provide: RESOLVED_OPTIONS,
          useFactory: (options: BullbeatModuleOptions) => resolveModuleOptions(options),
          inject: [BULLBEAT_MODULE_OPTIONS],
        },
        {
          provide: SchedulerManager,
          useFactory: (resolved: ResolvedBullbeatModuleOptions) => resolved.manager,
          inject: [RESOLVED_OPTIONS],
        },
        {
          provide: BullbeatRuntime,
          useFactory: (
            discovery: DiscoveryService,
            scanner: MetadataScanner,
            reflector: Reflector,
            resolved: ResolvedBullbeatModuleOptions,
          ) => new BullbeatRuntime(discovery, scanner, reflector, resolved),
          inject: [DiscoveryService, MetadataScanner, Reflector, RESOLVED_OPTIONS],
        },
      ],
      exports: [SchedulerManager, BULLBEAT_MODULE_OPTIONS],
    };
  }
}
