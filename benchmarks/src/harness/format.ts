const SI_PREFIXES: readonly (readonly [number, string])[] = [
  [1e12, 'T'],
  [1e9, 'G'],
  [1e6, 'M'],
  [1e3, 'k'],
];

/** `digits` significant digits, no exponent: 12.345 → "12.3", 0.01234 → "0.0123", 1234 → "1234" (integers stay whole). */
export function formatSignificant(value: number, digits = 3): string {
  if (!Number.isFinite(value)) return String(value);
  if (value === 0) return '0';
  if (Math.abs(value) >= 10 ** digits) return String(Math.round(value));
  // Round first, then count decimals, so 0.99996 prints as "1.00" and not "1.000".
  const rounded = Number(value.toPrecision(digits));
  const magnitude = Math.floor(Math.log10(Math.abs(rounded)));
  return rounded.toFixed(Math.min(20, Math.max(0, digits - 1 - magnitude)));
}

/**
 * A count or rate with an SI prefix and three significant digits.
 *
 * @example
 * ```ts
 * formatSi(12_345_678); // "12.3 M"
 * formatSi(950); // "950"
 * ```
 */
export function formatSi(value: number): string {
  const abs = Math.abs(value);
  for (const [scale, prefix] of SI_PREFIXES) {
    // Round first so 999_999 prints as "1.00 M", not "1000 k".
    if (Number(formatSignificant(abs / scale)) >= 1) return `${formatSignificant(value / scale)} ${prefix}`;
  }
  return formatSignificant(value);
}

/** A ratio as "2.31×". */
export function formatRatio(ratio: number): string {
  return `${formatSignificant(ratio)}×`;
}

/** "low–high" with the shared SI prefix written once when both have the same: "9.8–11.2 M". */
export function formatSiRange(low: number, high: number): string {
  const a = formatSi(low);
  const b = formatSi(high);
  const prefixA = a.split(' ')[1];
  const prefixB = b.split(' ')[1];
  if (prefixA !== undefined && prefixA === prefixB) return `${a.split(' ')[0]}–${b}`;
  return `${a}–${b}`;
}

/** A value followed by its range in brackets: "10.7 M (9.8–11.2 M)". */
export function formatSiWithRange(value: number, low: number, high: number): string {
  return `${formatSi(value)} (${formatSiRange(low, high)})`;
}

/** A ratio followed by its range: "2.31× (2.10–2.45)". */
export function formatRatioWithRange(ratio: number, low: number, high: number): string {
  return `${formatRatio(ratio)} (${formatSignificant(low)}–${formatSignificant(high)})`;
}

/** A duration for people: "0:07", "12:03", "1:02:03". Negative or non-finite → "?". */
export function formatClock(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '?';
  const total = Math.round(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const ss = String(s).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

/** A latency in milliseconds with a unit that keeps it readable: "850 µs", "12.3 ms", "1.20 s". */
export function formatMs(ms: number): string {
  if (ms < 1) return `${formatSignificant(ms * 1000)} µs`;
  if (ms < 1000) return `${formatSignificant(ms)} ms`;
  return `${formatSignificant(ms / 1000)} s`;
}
