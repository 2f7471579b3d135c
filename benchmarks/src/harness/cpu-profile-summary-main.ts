// Prints where the CPU of one or more `.cpuprofile` files went: busy time, each category's share
// (summed over the files, as threads of one process are), and the functions with the most self
// time. `npm run profile-summary -- <file.cpuprofile>... [--top <n>]` in the benchmarks workspace.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { BenchmarkUsageError } from './benchmark-errors.js';
import { PROFILE_CATEGORIES, topSelfFunctions, type CpuProfile } from './cpu-profile-summary.js';
import { summarizeThreadProfiles } from './thread-profiles.js';

const { values, positionals } = parseArgs({
  options: { top: { type: 'string', default: '15' } },
  allowPositionals: true,
});
const top = Number(values.top);
if (positionals.length === 0 || !Number.isInteger(top) || top < 0)
  throw new BenchmarkUsageError('usage: profile-summary <file.cpuprofile>... [--top <n>]');

const profiles = positionals.map((file) => JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);
const summary = summarizeThreadProfiles(profiles);
const percent = (share: number): string => `${(share * 100).toFixed(1).padStart(5)} %`;
console.log(`busy ${summary.busyMs.toFixed(0)} ms over ${profiles.length} profile(s)\n`);
for (const category of [...PROFILE_CATEGORIES].sort((a, b) => summary.shares[b] - summary.shares[a]))
  console.log(`${percent(summary.shares[category])}  ${category}`);
if (top > 0) {
  console.log(`\ntop ${top} functions by self time (first profile):`);
  for (const f of topSelfFunctions(profiles[0]!, top))
    console.log(
      `${percent(f.share)}  ${f.functionName || '(anonymous)'}  ${f.url.replace(/^.*\/node_modules\//, '')}  [${f.category}]`,
    );
}
