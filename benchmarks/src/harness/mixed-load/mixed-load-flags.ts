import { BenchmarkUsageError } from '../benchmark-errors.js';
import { numberFlag } from '../scenario-flags.js';
import { DEFAULT_MIXES, parseMix, type OperationMix } from './operation-mix.js';

/** `--mixes 100:0,90:10`; absent gives the source document's four mixes. */
export function mixesFlag(scenario: string, raw: string | undefined): OperationMix[] {
  try {
    return (raw ?? DEFAULT_MIXES.join(',')).split(',').map(parseMix);
  } catch (error) {
    throw new BenchmarkUsageError(`${scenario}: --mixes: ${(error as Error).message}`);
  }
}

/** A duration flag given in seconds (decimals allowed), returned in whole milliseconds. */
export function secondsFlagMs(
  scenario: string,
  name: string,
  raw: string | undefined,
  fallbackMs: number,
  range: { min: number; max: number },
): number {
  return Math.round(numberFlag(scenario, name, raw, fallbackMs / 1000, range) * 1000);
}
