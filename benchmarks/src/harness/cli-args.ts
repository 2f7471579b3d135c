import { BenchmarkUsageError } from './benchmark-errors.js';

/** The harness's own part of the command line; everything else goes to the scenario. */
export interface CliArgs {
  /** A scenario name; undefined only with `--help`. */
  target: string | undefined;
  output: string | undefined;
  quick: boolean;
  /** `--as-part-of-all`: `all` started this process; the scenario's flags are parsed knowing it. */
  partOfAll: boolean;
  help: boolean;
  /** The remaining arguments, in order, for the scenario's own flag parser. */
  scenarioArgs: string[];
}

/**
 * Splits `<scenario> [--output <dir>] [--quick] [--as-part-of-all] [--help] [scenario flags...]`. Unknown targets
 * fail with the list of known ones (`all` and `report` are commands of their own, see src/cli.ts).
 */
export function parseCliArgs(argv: readonly string[], known: readonly string[]): CliArgs {
  const out: CliArgs = {
    target: undefined,
    output: undefined,
    quick: false,
    partOfAll: false,
    help: false,
    scenarioArgs: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') continue;
    if (arg === '--quick') out.quick = true;
    else if (arg === '--as-part-of-all') out.partOfAll = true;
    else if (arg === '--help' || arg === '-h') out.help = true;
    else if (arg === '--output' || arg.startsWith('--output=')) {
      const value = arg === '--output' ? argv[++i] : arg.slice('--output='.length);
      if (value === undefined || value === '' || value.startsWith('--')) {
        throw new BenchmarkUsageError('--output needs a directory');
      }
      out.output = value;
    } else if (out.target === undefined && !arg.startsWith('-')) out.target = arg;
    else out.scenarioArgs.push(arg);
  }
  const choices = `choose all or one of: ${known.join(', ')}`;
  if (out.target === undefined) {
    if (out.help) return out;
    throw new BenchmarkUsageError(`no scenario given; ${choices}`);
  }
  if (!known.includes(out.target)) {
    throw new BenchmarkUsageError(`unknown scenario "${out.target}"; ${choices}`);
  }
  return out;
}
