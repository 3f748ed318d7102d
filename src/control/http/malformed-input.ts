import type { RequestHandler } from 'express';
import { validationProblem, type FieldError } from '../problems.js';

/** More would only lengthen the answer: the caller fixes these and learns of any others next time. */
const MAX_REPORTED = 10;
const SHOWN_SEGMENT_LENGTH = 64;
/** A high surrogate not followed by a low one, or a low one without a high one before it (code units, no u flag). */
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Why a string cannot be taken as it is, or null. PostgreSQL text and jsonb hold no NUL and no
 * unpaired surrogate (UTF-8 cannot encode one), and no field of this API has any use for either.
 */
function unrepresentable(value: string): string | null {
  if (value.includes('\u0000')) return 'must not contain a NUL character';
  if (UNPAIRED_SURROGATE.test(value)) return 'must be well-formed Unicode (it holds an unpaired surrogate)';
  return null;
}

function pathErrors(rawPath: string): FieldError[] {
  const errors: FieldError[] = [];
  for (const segment of rawPath.split('/')) {
    if (!segment.includes('%')) continue;
    const shown =
      segment.length > SHOWN_SEGMENT_LENGTH ? `${segment.slice(0, SHOWN_SEGMENT_LENGTH)}…` : segment;
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      errors.push({ field: 'path', message: `"${shown}" is not valid percent-encoded UTF-8` });
      continue;
    }
    const why = unrepresentable(decoded);
    if (why !== null) errors.push({ field: 'path', message: `"${shown}" ${why}` });
  }
  return errors;
}

function queryErrors(query: unknown): FieldError[] {
  if (typeof query !== 'object' || query === null) return [];
  const errors: FieldError[] = [];
  for (const [name, value] of Object.entries(query)) {
    const values: unknown[] = Array.isArray(value) ? value : [value];
    const why = [name, ...values].map((text) => (typeof text === 'string' ? unrepresentable(text) : null));
    const first = why.find((reason) => reason !== null);
    if (first !== undefined) errors.push({ field: name, message: first });
  }
  return errors;
}

interface Visit {
  value: unknown;
  parent: Visit | null;
  key: string | number | null;
}

function fieldPath(visit: Visit): string {
  const parts: string[] = [];
  for (let at: Visit | null = visit; at !== null && at.key !== null; at = at.parent) {
    parts.push(typeof at.key === 'number' ? `[${at.key}]` : `.${at.key}`);
  }
  const path = parts.reverse().join('').replace(/^\./, '');
  return path === '' ? 'body' : path;
}

/**
 * Walks the parsed JSON without recursion (a megabyte of nested arrays must not overflow the stack)
 * and builds a field's path only when it is reported.
 */
function bodyErrors(body: unknown): FieldError[] {
  if (typeof body !== 'object' || body === null) {
    const why = typeof body === 'string' ? unrepresentable(body) : null;
    return why === null ? [] : [{ field: 'body', message: why }];
  }
  const errors: FieldError[] = [];
  const pending: Visit[] = [{ value: body, parent: null, key: null }];
  while (pending.length > 0 && errors.length < MAX_REPORTED) {
    const visit = pending.pop() as Visit;
    const { value } = visit;
    if (typeof value === 'string') {
      const why = unrepresentable(value);
      if (why !== null) errors.push({ field: fieldPath(visit), message: why });
    } else if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index -= 1) {
        pending.push({ value: value[index], parent: visit, key: index });
      }
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, member] of Object.entries(value).reverse()) {
        const child = { value: member, parent: visit, key };
        const why = unrepresentable(key);
        if (why === null) pending.push(child);
        else errors.push({ field: fieldPath(child), message: `names a property that ${why}` });
      }
    }
  }
  return errors;
}

/**
 * Refuses, as a validation problem naming where, input that no endpoint can take: a path segment
 * whose percent-encoding is not UTF-8 (express cannot decode it into a parameter) and a NUL or an
 * unpaired surrogate in the path, the query or the JSON body (PostgreSQL refuses to store or even
 * compare it). Without this they surface as 500s from deep inside a lookup.
 */
export const refuseUnrepresentableInput: RequestHandler = (request, _response, next) => {
  const rawPath = request.originalUrl.split('?', 1)[0] as string;
  const errors = [...pathErrors(rawPath), ...queryErrors(request.query), ...bodyErrors(request.body)];
  if (errors.length === 0) {
    next();
    return;
  }
  next(validationProblem(errors.slice(0, MAX_REPORTED)));
};
