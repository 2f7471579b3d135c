import { BenchmarkUsageError } from '../harness/index.js';

/** The command line of `all`. */
export interface AllArgs {
  quick: boolean;
  /** `--only a,b`: these registered scenarios, in registry order; null for all of them. */
  only: string[] | null;
  output: string | undefined;
  /** `--compare <older results folder>`. */
  compare: string | undefined;
  help: boolean;
}

export const ALL_USAGE = [
  'Usage: npx nx run benchmarks:all [-- --quick] [-- --only a,b] [-- --output <dir>] [-- --compare <older run>]',
  '',
  'Runs every registered scenario with its source document’s defaults, each in a fresh process, and',
  'writes report.md and report.html at the top of the results folder.',
  '',
  '  --quick            the shortened profile (about 10 minutes here); numbers are not to be quoted',
  '  --only <list>      a subset of the scenarios, comma-separated',
  '  --output <dir>     results folder (default benchmarks/results/<UTC timestamp>-all)',
  '  --compare <dir>    an older results folder of all: its headlines in a column, regressions flagged',
  '  --help             this text',
  '',
  'Regenerate the report of a results folder: npx nx run benchmarks:bench -- report <dir> [--compare <dir>]',
].join('\n');

function value(argv: readonly string[], i: number, flag: string): string {
  const v = argv[i];
  if (v === undefined || v === '' || v.startsWith('--'))
    throw new BenchmarkUsageError(`${flag} needs a value`);
  return v;
}

/** Parses the arguments after `all`; unknown names in `--only` fail with the list of known ones. */
export function parseAllArgs(argv: readonly string[], known: readonly string[]): AllArgs {
  const out: AllArgs = { quick: false, only: null, output: undefined, compare: undefined, help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] =
      arg.startsWith('--') && arg.includes('=')
        ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
        : [arg, undefined];
    const take = (): string => (inline !== undefined ? value([inline], 0, flag) : value(argv, ++i, flag));
    if (arg === '--') continue;
    else if (flag === '--quick') out.quick = true;
    else if (flag === '--help' || flag === '-h') out.help = true;
    else if (flag === '--output') out.output = take();
    else if (flag === '--compare') out.compare = take();
    else if (flag === '--only') {
      const names = take()
        .split(',')
        .map((n) => n.trim())
        .filter(Boolean);
      const unknown = names.filter((n) => !known.includes(n));
      if (names.length === 0 || unknown.length > 0) {
        throw new BenchmarkUsageError(
          `--only: unknown scenario ${unknown.join(', ') || '(none given)'}; choose from ${known.join(', ')}`,
        );
      }
      out.only = known.filter((n) => names.includes(n));
    } else {
      throw new BenchmarkUsageError(
        `all takes --quick, --only, --output and --compare, not ${arg}; pass scenario flags when running one scenario`,
      );
    }
  }
  return out;
}
