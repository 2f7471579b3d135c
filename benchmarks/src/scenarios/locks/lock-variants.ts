import { Mutex, MetricsRegistry, ReadWriteLock } from '@fastpath/core';
import { Mutex as AsyncMutex } from 'async-mutex';

/** Runs `section` under the variant's lock (or none) and settles when the lock is released. */
export type LockOp = (section: () => unknown) => unknown;

export const LOCK_VARIANT_IDS = [
  'no-lock',
  'async-mutex',
  'mutex',
  'read',
  'write',
  'mutex-metrics',
  'read-metrics',
  'write-metrics',
] as const;

export type LockVariantId = (typeof LOCK_VARIANT_IDS)[number];

/** The variant every other one is compared with. */
export const BASELINE_VARIANT: LockVariantId = 'async-mutex';

/** One lock under test: how it is called, and whether it must exclude. */
export interface LockVariant {
  id: LockVariantId;
  label: string;
  /** Whether two callers must never hold it at once (checked while measuring). */
  exclusive: boolean;
  create(): LockOp;
}

// Each variant builds its own closure so every call site sees exactly one lock class.
export const LOCK_VARIANTS: Readonly<Record<LockVariantId, LockVariant>> = Object.freeze({
  'no-lock': {
    id: 'no-lock',
    label: 'no lock',
    exclusive: false,
    create: () => (section) => section(),
  },
  'async-mutex': {
    id: 'async-mutex',
    label: 'async-mutex Mutex (bare)',
    exclusive: true,
    create: () => {
      const m = new AsyncMutex();
      return (section) => m.runExclusive(section);
    },
  },
  mutex: {
    id: 'mutex',
    label: 'core Mutex',
    exclusive: true,
    create: () => {
      const m = new Mutex({ name: 'bench' });
      return (section) => m.runExclusive(section);
    },
  },
  read: {
    id: 'read',
    label: 'ReadWriteLock read',
    exclusive: false,
    create: () => {
      const l = new ReadWriteLock({ name: 'bench' });
      return (section) => l.runRead(section);
    },
  },
  write: {
    id: 'write',
    label: 'ReadWriteLock write',
    exclusive: true,
    create: () => {
      const l = new ReadWriteLock({ name: 'bench' });
      return (section) => l.runWrite(section);
    },
  },
  'mutex-metrics': {
    id: 'mutex-metrics',
    label: 'core Mutex + metrics',
    exclusive: true,
    create: () => {
      const m = new Mutex({ name: 'bench', metrics: new MetricsRegistry() });
      return (section) => m.runExclusive(section);
    },
  },
  'read-metrics': {
    id: 'read-metrics',
    label: 'ReadWriteLock read + metrics',
    exclusive: false,
    create: () => {
      const l = new ReadWriteLock({ name: 'bench', metrics: new MetricsRegistry() });
      return (section) => l.runRead(section);
    },
  },
  'write-metrics': {
    id: 'write-metrics',
    label: 'ReadWriteLock write + metrics',
    exclusive: true,
    create: () => {
      const l = new ReadWriteLock({ name: 'bench', metrics: new MetricsRegistry() });
      return (section) => l.runWrite(section);
    },
  },
});
