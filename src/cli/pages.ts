import { Option, type Command } from 'commander';
import type { Output } from './output.js';
import { positiveInteger } from './option-values.js';

export interface Page<Item> {
  items: Item[];
  nextCursor: string | null;
}

export interface PageOptions {
  limit?: number;
  cursor?: string;
}

/** The largest page the control plane serves. */
const MAX_PAGE_SIZE = 1000;

/** Adds --limit and --cursor, for reading a long list one page at a time. */
export function withPageOptions(command: Command): Command {
  return command
    .addOption(
      new Option('--limit <n>', 'only this many, and the cursor of the rest').argParser(
        positiveInteger('--limit', MAX_PAGE_SIZE),
      ),
    )
    .option('--cursor <cursor>', 'continue after the page that named this cursor');
}

/**
 * One page when --limit or --cursor is given, else every page in turn, gathered into one list
 * (nextCursor null), which is what a person listing their buckets wants.
 */
export async function readPages<Item>(
  fetchPage: (query: { limit?: number; cursor?: string }) => Promise<Page<Item>>,
  options: PageOptions,
): Promise<Page<Item>> {
  if (options.limit !== undefined || options.cursor !== undefined) {
    return fetchPage({
      ...(options.limit === undefined ? {} : { limit: options.limit }),
      ...(options.cursor === undefined ? {} : { cursor: options.cursor }),
    });
  }
  const items: Item[] = [];
  let cursor: string | null = null;
  do {
    const page: Page<Item> = await fetchPage({
      limit: MAX_PAGE_SIZE,
      ...(cursor === null ? {} : { cursor }),
    });
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return { items, nextCursor: null };
}

/** For people: where the next page starts, when there is one. */
export function noteNextPage(output: Output, page: { nextCursor: string | null }): void {
  if (page.nextCursor !== null) output.note(`more: repeat with --cursor ${page.nextCursor}`);
}
