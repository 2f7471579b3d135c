import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readmeRow, registry, scenarioScript } from './index.js';

// The registry is the one place a scenario is added: the Nx targets (package.json scripts) and the
// README table must say the same. On a difference the failure shows the lines to write.

const BENCHMARKS = join(__dirname, '..', '..');
const manifest = JSON.parse(readFileSync(join(BENCHMARKS, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};
const SCENARIO_SCRIPT = /^tsx --conditions development src\/cli\.ts ([a-z0-9-]+)$/;

function readmeTable(): string[][] {
  const lines = readFileSync(join(BENCHMARKS, 'README.md'), 'utf8').split('\n');
  const header = lines.findIndex((line) => /^\| scenario\s*\|/.test(line));
  if (header < 0) throw new Error('benchmarks/README.md has no table starting with "| scenario |"');
  const rows: string[][] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

describe('the scenario registry', () => {
  it('has a unique, well-formed name and a README for every scenario', () => {
    const names = registry.map((entry) => entry.scenario.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) {
      expect(name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(existsSync(join(BENCHMARKS, 'src', 'scenarios', name, 'README.md'))).toBe(true);
    }
  });

  it('is what the Nx targets run: one script per scenario, and none for a scenario not registered', () => {
    const expected = Object.fromEntries(
      registry.map((entry) => [entry.scenario.name, scenarioScript(entry.scenario.name)]),
    );
    const actual = Object.fromEntries(
      Object.entries(manifest.scripts).filter(([, command]) => SCENARIO_SCRIPT.test(command)),
    );
    // `all` runs the registry as a whole; it is the one non-scenario command of this shape.
    delete actual.all;
    expect(actual).toEqual(expected);
  });

  it('is the table at the top of benchmarks/README.md, in the same order', () => {
    expect(readmeTable()).toEqual(registry.map(readmeRow));
  });

  it('gives every scenario a summary that plans its cases and time, shorter with --quick', () => {
    for (const { scenario, summary } of registry) {
      const plan = (quick: boolean) => {
        const flags = scenario.parseFlags ? scenario.parseFlags([], { quick, all: true }) : {};
        return { cases: summary.cases(flags, quick), estimateMs: summary.estimateMs(flags, quick) };
      };
      const full = plan(false);
      const quick = plan(true);
      expect({ name: scenario.name, cases: quick.cases > 0 && full.cases >= quick.cases }).toEqual({
        name: scenario.name,
        cases: true,
      });
      expect({
        name: scenario.name,
        shorter: quick.estimateMs > 0 && quick.estimateMs < full.estimateMs,
      }).toEqual({
        name: scenario.name,
        shorter: true,
      });
    }
  });
});
