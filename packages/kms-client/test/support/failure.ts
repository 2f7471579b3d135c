import { KmsError } from '../../src/index.js';

/** The `KmsError` a call fails with; anything else (or success) fails the test. */
export async function failure(promise: Promise<unknown>): Promise<KmsError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof KmsError) return err;
    throw err;
  }
  throw new Error('the call succeeded');
}
