import { parseArgs } from 'node:util';
import { BenchmarkUsageError } from './benchmark-errors.js';

/** One flag a scenario accepts. */
export interface FlagDefinition {
  type: 'string' | 'boolean';
  /** Placeholder of the value in help: `'<n>'`, `'<ms>'`, `'<list>'`. */
  value?: string;
  /** One line of help, with the unit and the defaults (normal and `--quick`). */
  description: string;
}

export type FlagSpec = Readonly<Record<string, FlagDefinition>>;

/** Parsed flags: strings for string flags, booleans for boolean flags, absent when not given. */
export type FlagValues<S extends FlagSpec> = {
  [K in keyof S]?: S[K]['type'] extends 'boolean' ? boolean : string;
};

/** Help lines for a flag spec, aligned. */
export function describeFlags(spec: FlagSpec): string {
  const heads = Object.entries(spec).map(
    ([name, d]) => `--${name}${d.type === 'string' ? ` ${d.value ?? '<value>'}` : ''}`,
  );
  const width = Math.max(0, ...heads.map((h) => h.length));
  return Object.values(spec)
    .map((d, i) => `  ${heads[i]!.padEnd(width)}  ${d.description}`)
    .join('\n');
}

function knownList(spec: FlagSpec): string {
  const names = Object.keys(spec);
  return names.length ? names.map((n) => `--${n}`).join(', ') : 'none';
}

/**
 * Parses a scenario's own flags with `node:util` `parseArgs` (strict: unknown flags and stray
 * words are errors). Errors are {@link BenchmarkUsageError}s naming the scenario and listing the
 * flags it knows.
 *
 * @example
 * ```ts
 * const SPEC = { rounds: { type: 'string', value: '<n>', description: 'measured rounds (default 5)' } } as const;
 * const flags = parseScenarioFlags('locks', ['--rounds', '3'], SPEC); // { rounds: '3' }
 * const rounds = integerFlag('locks', 'rounds', flags.rounds, 5, { min: 1 });
 * ```
 */
export function parseScenarioFlags<const S extends FlagSpec>(
  scenario: string,
  args: readonly string[],
  spec: S,
): FlagValues<S> {
  for (const arg of args) {
    if (arg === '--') continue;
    if (arg.startsWith('--')) {
      const name = arg.slice(2).split('=')[0]!;
      if (!Object.hasOwn(spec, name)) {
        throw new BenchmarkUsageError(
          `${scenario}: unknown flag --${name}. Flags of ${scenario}: ${knownList(spec)}`,
        );
      }
    } else if (arg.startsWith('-') && arg.length > 1 && !/^-\d/.test(arg)) {
      throw new BenchmarkUsageError(
        `${scenario}: unknown flag ${arg}. Flags of ${scenario}: ${knownList(spec)}`,
      );
    }
  }
  const options: Record<string, { type: 'string' | 'boolean' }> = {};
  for (const [name, d] of Object.entries(spec)) options[name] = { type: d.type };
  try {
    const { values } = parseArgs({ args: [...args], options, strict: true, allowPositionals: false });
    return values as FlagValues<S>;
  } catch (err) {
    const message =
      err instanceof Error ? err.message.replace(/\s*To specify a positional argument.*$/s, '') : String(err);
    throw new BenchmarkUsageError(`${scenario}: ${message}. Flags of ${scenario}: ${knownList(spec)}`);
  }
}

/** Reads an integer flag in [min, max]; `raw === undefined` gives `fallback`. */
export function integerFlag(
  scenario: string,
  name: string,
  raw: string | undefined,
  fallback: number,
  range: { min?: number; max?: number } = {},
): number {
  if (raw === undefined) return fallback;
  const value = /^-?\d+$/.test(raw.trim()) ? Number(raw) : NaN;
  return checkRange(scenario, name, raw, value, range, 'an integer');
}

/** Reads a number flag (decimals allowed) in [min, max]; `raw === undefined` gives `fallback`. */
export function numberFlag(
  scenario: string,
  name: string,
  raw: string | undefined,
  fallback: number,
  range: { min?: number; max?: number } = {},
): number {
  if (raw === undefined) return fallback;
  const value = raw.trim() === '' ? NaN : Number(raw);
  return checkRange(scenario, name, raw, value, range, 'a number');
}

function checkRange(
  scenario: string,
  name: string,
  raw: string,
  value: number,
  range: { min?: number; max?: number },
  kind: string,
): number {
  const bounds =
    range.min !== undefined && range.max !== undefined
      ? ` from ${range.min} to ${range.max}`
      : range.min !== undefined
        ? ` of at least ${range.min}`
        : range.max !== undefined
          ? ` of at most ${range.max}`
          : '';
  if (
    !Number.isFinite(value) ||
    (range.min !== undefined && value < range.min) ||
    (range.max !== undefined && value > range.max)
  ) {
    throw new BenchmarkUsageError(`${scenario}: --${name} must be ${kind}${bounds}, got "${raw}"`);
  }
  return value;
}

/**
 * Reads a comma-separated list whose items must come from `allowed`; duplicates are dropped and
 * the given order is kept. `raw === undefined` gives `fallback`.
 */
export function listFlag<T extends string>(
  scenario: string,
  name: string,
  raw: string | undefined,
  fallback: readonly T[],
  allowed: readonly T[],
): T[] {
  if (raw === undefined) return [...fallback];
  const items = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (items.length === 0)
    throw new BenchmarkUsageError(`${scenario}: --${name} needs at least one of ${allowed.join(', ')}`);
  const out: T[] = [];
  for (const item of items) {
    if (!(allowed as readonly string[]).includes(item)) {
      throw new BenchmarkUsageError(
        `${scenario}: --${name} has unknown item "${item}"; choose from ${allowed.join(', ')}`,
      );
    }
    if (!out.includes(item as T)) out.push(item as T);
  }
  return out;
}
