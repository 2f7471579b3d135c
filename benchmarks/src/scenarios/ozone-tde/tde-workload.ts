// What the scenario and fastpath's client process share: names, the calls and their answers.
import { contractKeyBytes } from '@fastpath/ozone-fs-client/testing';

export const TDE_VOLUME = 'tdebench';
export const TDE_ENCRYPTED_BUCKET = 'enc';
export const TDE_PLAIN_BUCKET = 'plain';
export const TDE_BUCKET_KEY = 'tdebench-key';
/** The user the clients authenticate as, to get their tokens (simple authentication). */
export const TDE_USER = 'bench';

export const smallFileName = (i: number): string => `small-${String(i).padStart(6, '0')}`;
export const LARGE_KEY = 'large';

export type TdeCall =
  | {
      op: 'setup';
      omAddress: string;
      /** `http://127.0.0.1:<port>/kms` */
      kmsUrl: string;
      clients: number;
      files: number;
      fileBytes: number;
      largeBytes: number;
    }
  | { op: 'read'; windowMs: number; round: number }
  | { op: 'write'; windowMs: number; round: number }
  | { op: 'large'; bucket: string }
  | { op: 'close' };

/** One window of the small files: what the clients did together. */
export interface WindowSample {
  files: number;
  errors: number;
  elapsedMs: number;
  /** Per open (read window: openKey, which holds the lookup and the DECRYPT_EEK) or per file written, `LatencyRecorder.toBase64()`. */
  latencies: string;
  /** The whole file, open to close (read window). */
  fileLatencies: string;
  cpuSeconds: number;
  firstError?: string;
}

export interface LargeSample {
  bytes: number;
  elapsedMs: number;
  sumCheck: number;
}

/**
 * One byte of every KiB summed, outside the timed part of a large read: cheap, and a wrong data
 * key (or counter) changes it.
 */
export function largeSumCheck(data: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < data.length; i += 1024) sum = (sum + data[i]!) % 65_521;
  return sum;
}

/** The large key's content (the same for the encrypted and the plain bucket). */
export const largeKeyBytes = (largeBytes: number): Buffer => contractKeyBytes(largeBytes, 2);
