import { BenchmarkUsageError } from '../harness/index.js';
import { parseAllArgs } from './all-args.js';

const KNOWN = ['locks', 'secure-random', 'kms-http'];

describe('the command line of all', () => {
  it('takes the profile, a subset in registry order, the folder and an older run', () => {
    expect(
      parseAllArgs(['--', '--quick', '--only', 'kms-http,locks', '--output=out', '--compare', 'old'], KNOWN),
    ).toEqual({ quick: true, only: ['locks', 'kms-http'], output: 'out', compare: 'old', help: false });
    expect(parseAllArgs([], KNOWN)).toEqual({
      quick: false,
      only: null,
      output: undefined,
      compare: undefined,
      help: false,
    });
  });

  it('rejects unknown scenarios, missing values and scenario flags', () => {
    expect(() => parseAllArgs(['--only', 'lock'], KNOWN)).toThrow(
      new BenchmarkUsageError('--only: unknown scenario lock; choose from locks, secure-random, kms-http'),
    );
    expect(() => parseAllArgs(['--only', ','], KNOWN)).toThrow(/unknown scenario \(none given\)/);
    expect(() => parseAllArgs(['--compare'], KNOWN)).toThrow('--compare needs a value');
    expect(() => parseAllArgs(['--output', '--quick'], KNOWN)).toThrow('--output needs a value');
    expect(() => parseAllArgs(['--rounds', '3'], KNOWN)).toThrow(
      /all takes --quick, --only, --output and --compare, not --rounds/,
    );
  });
});
