import type { Express, Request } from 'express';
import type { ControlDependencies } from './dependencies.js';
import type { ControlServices } from './services/index.js';

/** What the generated routes reach through the request: kept on the app so each app has its own. */
export interface ControlRuntime {
  deps: ControlDependencies;
  services: ControlServices;
}

const KEY = 'controlRuntime';

export function attachRuntime(app: Express, runtime: ControlRuntime): void {
  app.locals[KEY] = runtime;
}

export function runtimeOf(request: Request): ControlRuntime {
  const runtime = request.app.locals[KEY] as ControlRuntime | undefined;
  if (runtime === undefined) throw new Error('the control runtime is not attached to this app');
  return runtime;
}
