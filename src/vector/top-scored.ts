/**
 * The `k` items with the largest `scores[item]`, best first, the larger item first on equal
 * scores: what `topK(items, k, (a, b) => scores[b] - scores[a] || b - a)` returns for distinct
 * items, without a comparator call per item. Items are non-negative integers (document or slot
 * numbers) and scores are not NaN. A bounded heap of numbers keeps the current best `k`; an item
 * no better than the worst kept one costs one comparison.
 */
export function topScored(items: readonly number[], scores: ArrayLike<number>, k: number): number[] {
  if (k <= 0 || items.length === 0) return [];
  // Min-heap on (score, item): the root is the worst of the kept items.
  const heap: number[] = [];
  const below = (a: number, b: number): boolean => {
    const sa = scores[a] as number;
    const sb = scores[b] as number;
    return sa < sb || (sa === sb && a < b);
  };
  for (let n = 0; n < items.length; n++) {
    const item = items[n] as number;
    if (heap.length < k) {
      // Sift up.
      let i = heap.length;
      heap.push(item);
      while (i > 0) {
        const parent = (i - 1) >> 1;
        const above = heap[parent] as number;
        if (!below(item, above)) break;
        heap[i] = above;
        i = parent;
      }
      heap[i] = item;
      continue;
    }
    if (!below(heap[0] as number, item)) continue;
    // Replace the root and sift down.
    let i = 0;
    const size = heap.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= size) break;
      const r = l + 1;
      let child = l;
      if (r < size && below(heap[r] as number, heap[l] as number)) child = r;
      const low = heap[child] as number;
      if (!below(low, item)) break;
      heap[i] = low;
      i = child;
    }
    heap[i] = item;
  }
  return heap.sort((a, b) => (below(a, b) ? 1 : below(b, a) ? -1 : 0));
}
