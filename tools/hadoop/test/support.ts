// Helpers shared by the integration tests.
import type { HadoopClientAnswer } from '@fastpath/hadoop-fixture';

/** The answer's fields, failing the test with Hadoop's exception when the call failed. */
export function ok(answer: HadoopClientAnswer | undefined): Record<string, unknown> {
  if (answer === undefined) throw new Error('no answer');
  if (!answer.ok) throw new Error(`Hadoop client failed: ${answer.exception}: ${String(answer.message)}`);
  return answer;
}

/** The failure, failing the test when the call succeeded. */
export function failed(answer: HadoopClientAnswer | undefined): Extract<HadoopClientAnswer, { ok: false }> {
  if (answer === undefined) throw new Error('no answer');
  if (answer.ok) throw new Error(`expected a failure, got ${JSON.stringify(answer)}`);
  return answer;
}

/** Whether a process with this pid exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
