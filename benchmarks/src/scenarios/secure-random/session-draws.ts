// What one op of each variant does. Loaded only in the worker threads.
//
// One op is one connection's key material: two keys and two IVs, in Hadoop's order. Every variant
// that can fill caller-owned memory does so into its own four buffers, allocated once when the
// variant is first run in a worker, so those rows differ only in where the bytes come from.
// `randomBytes` cannot fill a caller's buffer, and `pooled-allocating` is the allocating API on
// purpose: both return four new Buffers in Redacted boxes per op. The device rows and the pooled
// rows share fillSessionKeys, which sends a pooled source down a path of its own, so the device
// readers seen by the same function do not slow the pooled rows down.
import { randomBytes, randomFillSync } from 'node:crypto';
import { Redacted } from '@fastpath/core';
import {
  allocSessionKeyBuffers,
  DeviceSecureRandom,
  fillSessionKeys,
  generateSecureRandom,
  generateSessionKeys,
  PooledSecureRandom,
  SESSION_IV_BYTES,
  type SessionKeyBuffers,
  type SessionKeyBytes,
  type SessionKeys,
} from '@fastpath/secure-random';
import type { BulkVariantId, DrawVariantId } from './draw-variants.js';

const IV = SESSION_IV_BYTES;

/** One variant's op, and a way to look at what an op produced. */
export interface SessionDraw {
  /** One op. Returns a byte of the result, so the JIT cannot drop the draw as unused. */
  readonly op: () => number;
  /** Runs one op and returns copies of its four parts, in Hadoop's order. */
  readonly sample: () => Uint8Array[];
}

function filling(keys: SessionKeyBuffers, op: () => number): SessionDraw {
  return {
    op,
    sample: () => {
      op();
      return [keys.inKey, keys.inIv, keys.outKey, keys.outIv].map((part) => Uint8Array.from(part));
    },
  };
}

function allocating(draw: () => SessionKeys): SessionDraw {
  return {
    op: () => draw().inKey.unwrap()[0]!,
    sample: () => {
      const keys = draw();
      return [keys.inKey, keys.inIv, keys.outKey, keys.outIv].map((part) => Uint8Array.from(part.unwrap()));
    },
  };
}

function boxed(inKey: Buffer, inIv: Buffer, outKey: Buffer, outIv: Buffer): SessionKeys {
  return {
    inKey: new Redacted(inKey),
    inIv: new Redacted(inIv),
    outKey: new Redacted(outKey),
    outIv: new Redacted(outIv),
  };
}

/** One op of `variant`: the key material of one encrypted connection. */
export function sessionDraw(variant: DrawVariantId, keyBytes: SessionKeyBytes): SessionDraw {
  switch (variant) {
    case 'hadoop-style': {
      const keys = allocSessionKeyBuffers(keyBytes);
      return filling(keys, () => {
        const reader = new DeviceSecureRandom();
        try {
          fillSessionKeys(keys, reader);
        } finally {
          reader.close();
        }
        return keys.inKey[0]!;
      });
    }
    case 'device-shared': {
      const keys = allocSessionKeyBuffers(keyBytes);
      const reader = new DeviceSecureRandom();
      return filling(keys, () => fillSessionKeys(keys, reader).inKey[0]!);
    }
    case 'random-bytes':
      return allocating(() =>
        boxed(randomBytes(keyBytes), randomBytes(IV), randomBytes(keyBytes), randomBytes(IV)),
      );
    case 'random-fill-sync': {
      const keys = allocSessionKeyBuffers(keyBytes);
      return filling(keys, () => {
        randomFillSync(keys.inKey);
        randomFillSync(keys.inIv);
        randomFillSync(keys.outKey);
        randomFillSync(keys.outIv);
        return keys.inKey[0]!;
      });
    }
    case 'pooled-shared': {
      const keys = allocSessionKeyBuffers(keyBytes);
      return filling(keys, () => fillSessionKeys(keys).inKey[0]!);
    }
    case 'pooled-per-worker': {
      const keys = allocSessionKeyBuffers(keyBytes);
      const source = new PooledSecureRandom();
      return filling(keys, () => fillSessionKeys(keys, source).inKey[0]!);
    }
    case 'pooled-allocating': {
      const source = new PooledSecureRandom();
      return allocating(() => generateSessionKeys({ keyBytes, source }));
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
