import { BenchmarkUsageError } from './benchmark-errors.js';
import { parseCliArgs } from './cli-args.js';

const KNOWN = ['locks', 'secure-random'];

describe('parseCliArgs', () => {
  it('splits harness flags from scenario flags', () => {
    expect(parseCliArgs(['locks', '--quick', '--rounds', '3', '--output', 'out'], KNOWN)).toEqual({
      target: 'locks',
      output: 'out',
      quick: true,
      partOfAll: false,
      help: false,
      scenarioArgs: ['--rounds', '3'],
    });
    expect(parseCliArgs(['locks', '--output=/tmp/x', '--'], KNOWN)).toMatchObject({
      target: 'locks',
      output: '/tmp/x',
      scenarioArgs: [],
    });
  });

  it('rejects an unknown scenario and lists the known ones', () => {
    expect(() => parseCliArgs(['lock'], KNOWN)).toThrow(
      new BenchmarkUsageError('unknown scenario "lock"; choose all or one of: locks, secure-random'),
    );
  });

  it('asks for a scenario when none is given, unless help is asked for', () => {
    expect(() => parseCliArgs(['--quick'], KNOWN)).toThrow(/no scenario given; choose all or one of: locks/);
    expect(parseCliArgs(['--help'], KNOWN)).toMatchObject({ target: undefined, help: true });
  });

  it('leaves "all" to its own command line (src/all), which runs each scenario through this one', () => {
    expect(() => parseCliArgs(['all'], KNOWN)).toThrow(/unknown scenario "all"/);
  });

  it('needs a directory after --output', () => {
    expect(() => parseCliArgs(['locks', '--output'], KNOWN)).toThrow('--output needs a directory');
    expect(() => parseCliArgs(['locks', '--output', '--quick'], KNOWN)).toThrow(/--output needs a directory/);
  });
});
