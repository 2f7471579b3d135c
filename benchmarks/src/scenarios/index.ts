// The scenario registry: `all` runs these in this order, and each name is a CLI argument and an
// Nx target (`npx nx run benchmarks:<name>`, a script of the same name in benchmarks/package.json).
import type { Scenario } from '../harness/index.js';
import { kmsHttpScenario } from './kms-http/kms-http-scenario.js';
import { locksScenario } from './locks/locks-scenario.js';
import { secureRandomScenario } from './secure-random/secure-random-scenario.js';
import { tokenManagerScenario } from './token-manager/token-manager-scenario.js';

export const scenarios: readonly Scenario[] = [
  locksScenario,
  secureRandomScenario as Scenario,
  tokenManagerScenario as Scenario,
  kmsHttpScenario as Scenario,
];
