import { BenchmarkUsageError } from './benchmark-errors.js';

/** The harness's own part of the command line; everything else goes to the scenario. */
export interface CliArgs {
  /** `'all'` or a scenario name; undefined only with `--help`. */
  target: string | undefined;
  output: string | undefined;
  quick: boolean;
  help: boolean;
  /** The remaining arguments, in order, for the scenario's own flag parser. */
  scenarioArgs: string[];
}

/**
 * Splits `all|<scenario> [--output <dir>] [--quick] [--help] [scenario flags...]`. Unknown targets
 * fail with the list of known ones; `all` takes no scenario flags (each scenario has its own).
 */
export function parseCliArgs(argv: readonly string[], known: readonly string[]): CliArgs {
  const out: CliArgs = { target: undefined, output: undefined, quick: false, help: false, scenarioArgs: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') continue;
    if (arg === '--quick') out.quick = true;
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
  if (out.target !== 'all' && !known.includes(out.target)) {
    throw new BenchmarkUsageError(`unknown scenario "${out.target}"; ${choices}`);
  }
  if (out.target === 'all' && out.scenarioArgs.length > 0 && !out.help) {
    throw new BenchmarkUsageError(
      `"all" takes only --output and --quick, not ${out.scenarioArgs.join(' ')}; pass scenario flags when running one scenario`,
    );
  }
  return out;
}
