import { BenchmarkUsageError } from './benchmark-errors.js';
import { describeFlags, integerFlag, listFlag, numberFlag, parseScenarioFlags } from './scenario-flags.js';

const SPEC = {
  rounds: { type: 'string', value: '<n>', description: 'measured rounds (default 5)' },
  verbose: { type: 'boolean', description: 'say more' },
} as const;

describe('parseScenarioFlags', () => {
  it('parses known flags in both spellings', () => {
    expect(parseScenarioFlags('x', ['--rounds', '3', '--verbose'], SPEC)).toEqual({
      rounds: '3',
      verbose: true,
    });
    expect(parseScenarioFlags('x', ['--rounds=4'], SPEC)).toEqual({ rounds: '4' });
    expect(parseScenarioFlags('x', [], SPEC)).toEqual({});
  });

  it('rejects an unknown flag, naming the scenario and the flags it knows', () => {
    expect(() => parseScenarioFlags('locks', ['--round', '3'], SPEC)).toThrow(
      new BenchmarkUsageError('locks: unknown flag --round. Flags of locks: --rounds, --verbose'),
    );
    expect(() => parseScenarioFlags('locks', ['-r'], SPEC)).toThrow(/unknown flag -r/);
  });

  it('rejects a missing value, a value on a switch, and stray words', () => {
    expect(() => parseScenarioFlags('x', ['--rounds'], SPEC)).toThrow(/x: .*--rounds.*Flags of x/);
    expect(() => parseScenarioFlags('x', ['--verbose=yes'], SPEC)).toThrow(BenchmarkUsageError);
    expect(() => parseScenarioFlags('x', ['extra'], SPEC)).toThrow(/x: .*extra/);
  });

  it('lists flags with their placeholders for --help', () => {
    expect(describeFlags(SPEC)).toBe('  --rounds <n>  measured rounds (default 5)\n  --verbose     say more');
  });
});

describe('flag values', () => {
  it('reads integers in range, and falls back when absent', () => {
    expect(integerFlag('x', 'rounds', undefined, 5)).toBe(5);
    expect(integerFlag('x', 'rounds', '7', 5, { min: 1 })).toBe(7);
    expect(() => integerFlag('x', 'rounds', '0', 5, { min: 1 })).toThrow(
      'x: --rounds must be an integer of at least 1, got "0"',
    );
    expect(() => integerFlag('x', 'rounds', '2.5', 5)).toThrow(/must be an integer/);
    expect(() => integerFlag('x', 'rounds', 'abc', 5, { min: 1, max: 9 })).toThrow(/from 1 to 9, got "abc"/);
  });

  it('reads numbers', () => {
    expect(numberFlag('x', 'measure', '1.5', 15, { min: 0 })).toBe(1.5);
    expect(() => numberFlag('x', 'measure', '', 15)).toThrow(/must be a number/);
    expect(() => numberFlag('x', 'measure', '-1', 15, { min: 0 })).toThrow(/at least 0/);
  });

  it('reads lists from a fixed set, keeping order and dropping duplicates', () => {
    const allowed = ['a', 'b', 'c'] as const;
    expect(listFlag('x', 'modes', undefined, ['a'], allowed)).toEqual(['a']);
    expect(listFlag('x', 'modes', 'c, a,c', ['a'], allowed)).toEqual(['c', 'a']);
    expect(() => listFlag('x', 'modes', 'a,d', ['a'], allowed)).toThrow(
      'x: --modes has unknown item "d"; choose from a, b, c',
    );
    expect(() => listFlag('x', 'modes', ' , ', ['a'], allowed)).toThrow(/needs at least one/);
  });
});
