/** Runs one step of a search and returns its value with the milliseconds it took by `now`. */
export async function timed<T>(now: () => number, step: () => Promise<T>): Promise<[T, number]> {
  const start = now();
  const value = await step();
  return [value, now() - start];
}
