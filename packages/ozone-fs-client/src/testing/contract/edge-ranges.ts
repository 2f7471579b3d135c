// Read ranges for the suites: seeded, so that a failing range can be read again.
/**
 * `count` seeded ranges (position, length) within [0, size); every other one has both ends within
 * a byte of a multiple of `edge` (a cell, a chunk), where layout arithmetic goes wrong first.
 */
export function edgeRanges(size: number, count: number, edge: number, seed: number): Array<[number, number]> {
  let x = seed >>> 0;
  const next = (n: number): number => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return x % n;
  };
  const nearEdge = (): number =>
    Math.min(size, Math.max(0, Math.round(next(size) / edge) * edge + next(3) - 1));
  const out: Array<[number, number]> = [];
  for (let i = 0; i < count; i++) {
    const a = i % 2 === 0 ? nearEdge() : next(size);
    const b = i % 2 === 0 ? nearEdge() : next(size + 1);
    out.push([Math.min(a, b), Math.abs(b - a)]);
  }
  return out;
}
