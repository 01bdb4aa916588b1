/**
 * The best `k` items by `compare` (negative = a ranks before b), best first, by partial selection:
 * a bounded heap keeps the current top k, so the cost is O(n log k) rather than a full sort.
 * `compare` must be a total order for results to be deterministic.
 */
export function topK<T>(items: Iterable<T>, k: number, compare: (a: T, b: T) => number): T[] {
  if (k <= 0) return [];
  // Max-heap on "worse": the root is the worst of the kept items.
  const heap: T[] = [];
  const worse = (i: number, j: number): boolean => compare(heap[i] as T, heap[j] as T) > 0;
  const swap = (i: number, j: number): void => {
    const t = heap[i] as T;
    heap[i] = heap[j] as T;
    heap[j] = t;
  };
  const siftUp = (start: number): void => {
    let i = start;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!worse(i, parent)) break;
      swap(i, parent);
      i = parent;
    }
  };
  const siftDown = (start: number): void => {
    let i = start;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < heap.length && worse(l, worst)) worst = l;
      if (r < heap.length && worse(r, worst)) worst = r;
      if (worst === i) return;
      swap(i, worst);
      i = worst;
    }
  };
  for (const item of items) {
    if (heap.length < k) {
      heap.push(item);
      siftUp(heap.length - 1);
    } else if (compare(item, heap[0] as T) < 0) {
      heap[0] = item;
      siftDown(0);
    }
  }
  return heap.sort(compare);
}
