/** Storage pipeline stages for unit tests: a request as Node would hand it over, taken apart by the real steps. */
import type http from 'node:http';
import { Exchange } from '../../../src/s3/exchange.js';
import type { Addressed, Authenticated, Identity } from '../../../src/s3/stages.js';
import { address, arrive } from '../../../src/s3/steps/address.js';
import { NO_BODY } from '../../../src/sigv4/body-plan.js';

export const TEST_DOMAIN = 's3.local';

/** An exchange for a request with these headers (names any case; host defaults to the test domain). */
export function exchangeFor(method: string, target: string, headers: Record<string, string> = {}): Exchange {
  const lower: Record<string, string> = { host: TEST_DOMAIN };
  for (const [name, value] of Object.entries(headers)) lower[name.toLowerCase()] = value;
  const request = {
    method,
    url: target,
    headers: lower,
    rawHeaders: Object.entries(lower).flat(),
    headersDistinct: Object.fromEntries(Object.entries(lower).map(([name, value]) => [name, [value]])),
  } as unknown as http.IncomingMessage;
  return new Exchange(request, {} as http.ServerResponse);
}

/** The Addressed stage the pipeline would reach for this request. */
export function addressedFor(
  method: string,
  target: string,
  headers: Record<string, string> = {},
): Addressed {
  return address(arrive(exchangeFor(method, target, headers)), TEST_DOMAIN);
}

/** The Authenticated stage for this request and identity (the body plan: none). */
export function authenticatedFor(
  identity: Identity,
  method: string,
  target: string,
  headers: Record<string, string> = {},
): Authenticated {
  return { ...addressedFor(method, target, headers), identity, bodyPlan: NO_BODY };
}
