// What one op of each variant does. Loaded only in the worker threads.
//
// Every variant produces the same result: two keys and two IVs, each a new Buffer, boxed in
// Redacted, in one object. Each variant calls its generator from its own code rather than through
// one helper taking a generator, so every call site sees one kind of generator and no variant
// slows another down by making a shared call site polymorphic.
import { randomBytes, randomFillSync } from 'node:crypto';
import { Redacted } from '@fastpath/core';
import {
  DeviceSecureRandom,
  generateSecureRandom,
  generateSessionKeys,
  PooledSecureRandom,
  SESSION_IV_BYTES,
  type SessionKeyBytes,
  type SessionKeys,
} from '@fastpath/secure-random';
import type { BulkVariantId, DrawVariantId } from './draw-variants.js';

const IV = SESSION_IV_BYTES;

function keysOf(inKey: Buffer, inIv: Buffer, outKey: Buffer, outIv: Buffer): SessionKeys {
  return {
    inKey: new Redacted(inKey),
    inIv: new Redacted(inIv),
    outKey: new Redacted(outKey),
    outIv: new Redacted(outIv),
  };
}

/** One op of `variant`: the key material of one encrypted connection. */
export function sessionDraw(variant: DrawVariantId, keyBytes: SessionKeyBytes): () => SessionKeys {
  switch (variant) {
    case 'hadoop-style':
      return () => {
        const reader = new DeviceSecureRandom();
        try {
          return keysOf(reader.bytes(keyBytes), reader.bytes(IV), reader.bytes(keyBytes), reader.bytes(IV));
        } finally {
          reader.close();
        }
      };
    case 'device-shared': {
      const reader = new DeviceSecureRandom();
      return () => keysOf(reader.bytes(keyBytes), reader.bytes(IV), reader.bytes(keyBytes), reader.bytes(IV));
    }
    case 'random-bytes':
      return () => keysOf(randomBytes(keyBytes), randomBytes(IV), randomBytes(keyBytes), randomBytes(IV));
    case 'random-fill-sync':
      return () =>
        keysOf(
          randomFillSync(Buffer.allocUnsafeSlow(keyBytes)),
          randomFillSync(Buffer.allocUnsafeSlow(IV)),
          randomFillSync(Buffer.allocUnsafeSlow(keyBytes)),
          randomFillSync(Buffer.allocUnsafeSlow(IV)),
        );
    case 'pooled-shared':
      return () => generateSessionKeys({ keyBytes });
    case 'pooled-per-worker': {
      const source = new PooledSecureRandom();
      return () => generateSessionKeys({ keyBytes, source });
    }
  }
}

/** One bulk draw of `bytes` bytes. */
export function bulkDraw(variant: BulkVariantId, bytes: number): () => Buffer {
  switch (variant) {
    case 'random-fill-sync':
      return () => randomFillSync(Buffer.allocUnsafeSlow(bytes));
    case 'pooled':
      return () => generateSecureRandom(bytes);
  }
}
