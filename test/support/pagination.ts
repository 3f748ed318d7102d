import { expect } from 'vitest';
import type { ControlClient } from './control-plane.js';

export interface PaginationOptions {
  /** Items per page while walking. */
  readonly limit: number;
  /** The field that tells items apart (an id, a name). */
  readonly key: string;
  /** The field of the answer holding the page's items. */
  readonly items?: string;
}

/**
 * Walks a paginated /v1 list `limit` items at a time, following `nextCursor` to its end, and asserts
 * that the pages together are exactly what one page of 1000 holds, in the same order: nothing twice,
 * nothing missing, every page before the last full. Returns the items' keys, in order.
 */
export async function expectFullPagination(
  client: ControlClient,
  path: string,
  { limit, key, items = 'items' }: PaginationOptions,
): Promise<unknown[]> {
  const join = path.includes('?') ? '&' : '?';
  const keysOf = (body: Record<string, unknown>) =>
    (body[items] as Record<string, unknown>[]).map((item) => item[key]);
  const whole = await client.get(`${path}${join}limit=1000`);
  expect(whole.status, whole.text).toBe(200);
  expect(whole.body.nextCursor, 'the whole list fits one page').toBeNull();
  const expected = keysOf(whole.body);

  const walked: unknown[] = [];
  let cursor: string | null = null;
  // One page more than a full walk needs: a cursor that never ends fails instead of looping.
  for (let page = 0; page <= Math.ceil(expected.length / limit); page += 1) {
    const answer = await client.get(
      `${path}${join}limit=${limit}${cursor === null ? '' : `&cursor=${cursor}`}`,
    );
    expect(answer.status, answer.text).toBe(200);
    const keys = keysOf(answer.body);
    cursor = answer.body.nextCursor as string | null;
    if (cursor !== null) expect(keys, 'a page before the last is full').toHaveLength(limit);
    walked.push(...keys);
    if (cursor === null) break;
  }
  expect(cursor, 'the walk ended').toBeNull();
  expect(new Set(walked).size, 'no item on two pages').toBe(walked.length);
  expect(walked).toEqual(expected);
  return walked;
}
