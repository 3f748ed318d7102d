/**
 * The order SigV4 sorts in: by UTF-16 code unit, which for the percent-encoded ASCII of canonical
 * names and values is byte order.
 */
export function compareCodeUnits(left: string, right: string): number {
  if (left < right) return -1;
  return left > right ? 1 : 0;
}

/** Up to this many items are sorted by insertion; a request's query or headers rarely hold more. */
const FEW = 16;

/**
 * Sorts `items` in place, stably, and returns them. The few items of a request's query or headers
 * are sorted by insertion, which allocates nothing, where Array#sort copies them into a work array
 * first (BENCHMARKS.md, change 22); a longer list, which a client can make as long as its request
 * line allows, goes to Array#sort and its n log n.
 */
export function sortFew<T>(items: T[], compare: (left: T, right: T) => number): T[] {
  if (items.length > FEW) return items.sort(compare);
  for (let next = 1; next < items.length; next += 1) {
    const item = items[next] as T;
    let at = next;
    while (at > 0 && compare(items[at - 1] as T, item) > 0) {
      items[at] = items[at - 1] as T;
      at -= 1;
    }
    items[at] = item;
  }
  return items;
}
