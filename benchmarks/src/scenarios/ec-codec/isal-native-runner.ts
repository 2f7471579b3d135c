import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runProcess } from '@fastpath/jvm-fixture';
import { BenchmarkProcessError } from '../../harness/index.js';
import type { CodecCase } from './measure-fastpath-coder.js';

const ISAL_HEADER = '/usr/include/isa-l/erasure_code.h';

/** ISA-L measured from C (isal-native-bench.c), built once per run; or why it cannot be. */
export type IsalNativeRunner =
  | {
      readonly available: true;
      run(c: CodecCase, rounds: number, roundMs: number): Promise<number[]>;
      close(): void;
    }
  | { readonly available: false; readonly reason: string };

/** Compiles the C program with `cc` against Debian's libisal (libisal-dev). */
export async function prepareIsalNative(sourcePath: string): Promise<IsalNativeRunner> {
  if (!existsSync(ISAL_HEADER))
    return { available: false, reason: `${ISAL_HEADER} is missing (apt-get install libisal-dev)` };
  const dir = mkdtempSync(join(tmpdir(), 'ec-codec-isal-'));
  const binary = join(dir, 'isal-native-bench');
  const built = await runProcess('cc', ['-O2', '-o', binary, sourcePath, '-lisal'], {
    timeoutMs: 120_000,
  }).catch((err: unknown) => ({ code: -1, stdout: '', stderr: String(err) }));
  if (built.code !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return { available: false, reason: `cc failed: ${built.stderr.trim().split('\n').slice(-3).join(' ')}` };
  }
  return {
    available: true,
    async run(c, rounds, roundMs) {
      const args = [c.data, c.parity, c.cellBytes, c.erasures, rounds, roundMs].map(String);
      const result = await runProcess(binary, args, { timeoutMs: 60_000 + 2 * (rounds + 1) * roundMs });
      if (result.code !== 0) {
        throw new BenchmarkProcessError(
          `isal-native-bench ${args.join(' ')} exited ${String(result.code)}: ${result.stderr}`,
        );
      }
      return (JSON.parse(result.stdout) as { mibPerSecond: number[] }).mibPerSecond;
    },
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}
