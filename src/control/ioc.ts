import type { Request } from 'express';
import type { IocContainer, IocContainerFactory } from '@tsoa/runtime';
import { runtimeOf } from './runtime-locals.js';
import type { ControlServices } from './services/index.js';

/**
 * tsoa's IoC hook: every controller is constructed with the services of the app serving the request,
 * so several gateways (tests) can run in one process.
 */
export const iocContainer: IocContainerFactory<Request> = (request) =>
  ({
    get: (controller: new (services: ControlServices) => unknown) =>
      new controller(runtimeOf(request).services),
  }) as IocContainer;
