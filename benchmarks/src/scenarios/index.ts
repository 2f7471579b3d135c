// The scenario registry: `all` runs these in this order, and each name is a CLI argument and an
// Nx target (`npx nx run benchmarks:<name>`, a script of the same name in benchmarks/package.json).
import type { Scenario } from '../harness/index.js';
import { locksScenario } from './locks/locks-scenario.js';
import { tokenManagerScenario } from './token-manager/token-manager-scenario.js';

export const scenarios: readonly Scenario[] = [locksScenario, tokenManagerScenario as Scenario];
