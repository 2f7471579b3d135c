import type { SerializedKeyStoreCommand } from '../keystore/keystore-state.js';

/** Messages a worker sends to the primary. */
export type WorkerMessage =
  | { t: 'kms:hello' }
  | { t: 'kms:apply'; id: number; command: SerializedKeyStoreCommand }
  | { t: 'kms:ack'; generation: number }
  | { t: 'kms:listening'; host: string; port: number; url: string }
  | { t: 'kms:metrics'; id: number }
  | { t: 'kms:collected'; id: number; metrics: unknown };

/** Messages the primary sends to a worker. */
export type PrimaryMessage =
  | { t: 'kms:init'; state: string; signatureSecret: string }
  | { t: 'kms:state'; state: string; generation: number }
  | { t: 'kms:applied'; id: number; error?: { code: string; message: string } }
  | { t: 'kms:metrics-result'; id: number; contentType?: string; text?: string; error?: string }
  | { t: 'kms:collect'; id: number }
  | { t: 'kms:shutdown' };

/** Environment variable marking a process as a KMS cluster worker. */
export const WORKER_ENV = 'FASTPATH_KMS_CLUSTER_WORKER';

export function isKmsMessage(message: unknown): message is { t: string } {
  return (
    typeof message === 'object' &&
    message !== null &&
    typeof (message as { t?: unknown }).t === 'string' &&
    (message as { t: string }).t.startsWith('kms:')
  );
}
