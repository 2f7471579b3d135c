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

// One copy of the process check, shared by every fixture's tests.
export { isAlive } from '@fastpath/test-support';
