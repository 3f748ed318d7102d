import { invalidField } from './problems.js';

/** A page of a list; `nextCursor` is null on the last page. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export const DEFAULT_PAGE_SIZE = 50;

/**
 * Store cursors (an id, a name, a backend continuation token) are wrapped in base64url so clients
 * treat them as opaque and the store's ordering can change without breaking them.
 */
export function encodeCursor(position: string | null): string | null {
  return position === null ? null : Buffer.from(position, 'utf8').toString('base64url');
}

/** The store position inside a cursor; a cursor that does not decode to a valid one is a bad field. */
export function decodeCursor(
  cursor: string | undefined,
  isValidPosition: (position: string) => boolean = (position) => position.length > 0,
): string | null {
  if (cursor === undefined || cursor === '') return null;
  const position = /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  if (!isValidPosition(position)) {
    throw invalidField('cursor', 'is not a cursor this list handed out');
  }
  return position;
}

export function toPage<R, T>(
  page: { items: R[]; nextCursor: string | null },
  map: (record: R) => T,
): Page<T> {
  return { items: page.items.map(map), nextCursor: encodeCursor(page.nextCursor) };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids made by this service are UUIDs; anything else names nothing (and must not reach a uuid column). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
