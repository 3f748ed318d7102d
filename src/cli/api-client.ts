import createClient, { type Client } from 'openapi-fetch';
import { CliError, NotLoggedInError, RefusedError } from './errors.js';
import type { components, paths } from './generated/control-plane.js';
import { USER_AGENT, type Transport } from './transport.js';

/** The control plane's operations, typed from openapi/openapi.json (npm run generate:api). */
export type ControlPlane = Client<paths>;
export type Schemas = components['schemas'];
export type Problem = Schemas['ProblemDocument'];

export function controlPlane(baseUrl: string, transport: Transport): ControlPlane {
  return createClient<paths>({
    baseUrl: baseUrl.replace(/\/+$/, ''),
    fetch: transport,
    headers: { 'user-agent': USER_AGENT },
  });
}

/** What every openapi-fetch call resolves to. */
interface Answer<Data> {
  data?: Data;
  error?: unknown;
  response: Response;
}

/** The answer's body, or the refusal as a {@link CliError}. */
export async function expectData<Data>(call: Promise<Answer<Data>>): Promise<Data> {
  const answer = await call;
  if (answer.error !== undefined || !answer.response.ok) throw refusalOf(answer.response, answer.error);
  return answer.data as Data;
}

/** For operations answered 204 without a body. */
export async function expectDone(call: Promise<Answer<unknown>>): Promise<void> {
  await expectData(call);
}

/**
 * A refusal as one readable line: the problem's explanation, then its code, the HTTP status and
 * the request id (the `x-request-id` the gateway logged it under, for a support request). 401s
 * mean the person has to log in (again): exit code 3; every other refusal: 1.
 */
export function refusalOf(response: Response, body: unknown): CliError {
  const line = refusalLine(response, body);
  return response.status === 401 ? new NotLoggedInError(line) : new RefusedError(line);
}

export function refusalLine(response: Response, body: unknown): string {
  const requestId = (isProblem(body) ? body.requestId : undefined) ?? response.headers.get('x-request-id');
  const status = `HTTP ${response.status}`;
  const reference = requestId ? `, request id ${requestId}` : '';
  if (isProblem(body)) {
    const explanation = oneLine(body.detail || body.title);
    return `${explanation} (${body.code}, ${status}${reference})`;
  }
  const statusText = response.statusText ? ` ${response.statusText}` : '';
  return `the gateway answered ${status}${statusText} without a problem document (${new URL(response.url || 'http://unknown').pathname}${reference})`;
}

function isProblem(body: unknown): body is Problem {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as Problem).code === 'string' &&
    typeof (body as Problem).status === 'number'
  );
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

/** The problem code of a response without consuming it, or null when it carries none. */
export async function problemCodeOf(response: Response): Promise<string | null> {
  try {
    const body: unknown = await response.clone().json();
    return isProblem(body) ? body.code : null;
  } catch {
    return null;
  }
}
