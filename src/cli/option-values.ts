import { UsageError } from './errors.js';

/** An http(s) URL without a trailing slash; a control-plane URL also without a trailing /v1. */
export function httpUrl(option: string, { stripApiPath = false } = {}): (text: string) => string {
  return (text) => {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new UsageError(`${option} expects an http:// or https:// URL, not "${text}"`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new UsageError(`${option} expects an http:// or https:// URL, not "${text}"`);
    }
    let normalised = url.href.replace(/\/+$/, '');
    if (stripApiPath) normalised = normalised.replace(/\/v1$/, '');
    return normalised;
  };
}

export function positiveInteger(option: string, max = Number.MAX_SAFE_INTEGER): (text: string) => number {
  return (text) => {
    if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > max) {
      throw new UsageError(`${option} expects a whole number from 1 to ${max}, not "${text}"`);
    }
    return Number(text);
  };
}

/** Collects a repeatable option's values, each also split at commas: --bucket a --bucket b,c. */
export function collectList(text: string, previous: string[] = []): string[] {
  return [
    ...previous,
    ...text
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== ''),
  ];
}
