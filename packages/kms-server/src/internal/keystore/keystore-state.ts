import { Redacted } from '@fastpath/core';
import { KmsRequestError } from '../../kms-errors.js';

/** One key as stored: its metadata and the material of every version (index = version number). */
export interface StoredKey {
  readonly name: string;
  readonly cipher: string;
  readonly bitLength: number;
  readonly description: string | null;
  readonly attributes: Readonly<Record<string, string>>;
  /** Creation time, epoch ms. */
  readonly created: number;
  readonly versions: readonly Redacted<Buffer>[];
}

/** The whole keystore content. `generation` counts committed updates. */
export interface KeyStoreState {
  readonly generation: number;
  readonly keys: ReadonlyMap<string, StoredKey>;
}

/** A change to the keystore. Material travels in the command so replicas apply the same change. */
export type KeyStoreCommand =
  | {
      readonly op: 'create';
      readonly name: string;
      readonly cipher: string;
      readonly bitLength: number;
      readonly description: string | null;
      readonly attributes: Readonly<Record<string, string>>;
      readonly created: number;
      readonly material: Redacted<Buffer>;
    }
  | { readonly op: 'roll'; readonly name: string; readonly material: Redacted<Buffer> }
  | { readonly op: 'delete'; readonly name: string };

/** An empty keystore. */
export const EMPTY_KEYSTORE_STATE: KeyStoreState = Object.freeze({ generation: 0, keys: new Map() });

/**
 * Applies one command to a state and returns the new state (the old one is left as it was).
 * Refuses a create of an existing key and a roll or delete of a missing one with Hadoop's
 * messages.
 */
export function applyKeyStoreCommand(state: KeyStoreState, command: KeyStoreCommand): KeyStoreState {
  const keys = new Map(state.keys);
  const existing = keys.get(command.name);
  switch (command.op) {
    case 'create':
      if (existing) throw new KmsRequestError('ERR_KMS_KEY_EXISTS', `Key ${command.name} already exists`);
      keys.set(command.name, {
        name: command.name,
        cipher: command.cipher,
        bitLength: command.bitLength,
        description: command.description,
        attributes: Object.freeze({ ...command.attributes }),
        created: command.created,
        versions: Object.freeze([command.material]),
      });
      break;
    case 'roll':
      if (!existing) throw new KmsRequestError('ERR_KMS_KEY_NOT_FOUND', `Key ${command.name} not found`);
      keys.set(command.name, {
        ...existing,
        versions: Object.freeze([...existing.versions, command.material]),
      });
      break;
    case 'delete':
      if (!existing) throw new KmsRequestError('ERR_KMS_KEY_NOT_FOUND', `Key ${command.name} does not exist`);
      keys.delete(command.name);
      break;
  }
  return Object.freeze({ generation: state.generation + 1, keys });
}

interface SerializedKey {
  name: string;
  cipher: string;
  bitLength: number;
  description: string | null;
  attributes: Record<string, string>;
  created: number;
  versions: string[];
}

interface SerializedState {
  format: 1;
  generation: number;
  keys: SerializedKey[];
}

/** The plaintext form of a state (JSON; material in base64). Handle the result as a secret. */
export function serializeKeyStoreState(state: KeyStoreState): Buffer {
  const body: SerializedState = {
    format: 1,
    generation: state.generation,
    keys: [...state.keys.values()].map((k) => ({
      name: k.name,
      cipher: k.cipher,
      bitLength: k.bitLength,
      description: k.description,
      attributes: { ...k.attributes },
      created: k.created,
      versions: k.versions.map((v) => v.unwrap().toString('base64')),
    })),
  };
  return Buffer.from(JSON.stringify(body), 'utf8');
}

/** Reads {@link serializeKeyStoreState}'s form; throws a plain Error describing what is wrong. */
export function deserializeKeyStoreState(plaintext: Buffer): KeyStoreState {
  const body = JSON.parse(plaintext.toString('utf8')) as Partial<SerializedState> | null;
  if (body === null || typeof body !== 'object' || body.format !== 1)
    throw new Error('unknown content format');
  if (!Number.isSafeInteger(body.generation) || (body.generation as number) < 0)
    throw new Error('bad generation');
  if (!Array.isArray(body.keys)) throw new Error('bad key list');
  const keys = new Map<string, StoredKey>();
  for (const k of body.keys) {
    if (
      typeof k?.name !== 'string' ||
      typeof k.cipher !== 'string' ||
      !Number.isSafeInteger(k.bitLength) ||
      !(k.description === null || typeof k.description === 'string') ||
      typeof k.attributes !== 'object' ||
      k.attributes === null ||
      !Object.values(k.attributes).every((v) => typeof v === 'string') ||
      !Number.isSafeInteger(k.created) ||
      !Array.isArray(k.versions) ||
      k.versions.length === 0 ||
      !k.versions.every((v) => typeof v === 'string') ||
      keys.has(k.name)
    ) {
      throw new Error('bad key entry');
    }
    keys.set(k.name, {
      name: k.name,
      cipher: k.cipher,
      bitLength: k.bitLength,
      description: k.description,
      attributes: Object.freeze({ ...k.attributes }),
      created: k.created,
      versions: Object.freeze(k.versions.map((v) => new Redacted(Buffer.from(v, 'base64')))),
    });
  }
  return Object.freeze({ generation: body.generation as number, keys });
}

/** A command in a form that crosses a process boundary (material in base64). */
export type SerializedKeyStoreCommand =
  | (Omit<Extract<KeyStoreCommand, { op: 'create' }>, 'material'> & { material: string })
  | { op: 'roll'; name: string; material: string }
  | { op: 'delete'; name: string };

export function serializeKeyStoreCommand(command: KeyStoreCommand): SerializedKeyStoreCommand {
  if (command.op === 'delete') return { op: 'delete', name: command.name };
  return { ...command, material: command.material.unwrap().toString('base64') };
}

export function deserializeKeyStoreCommand(command: SerializedKeyStoreCommand): KeyStoreCommand {
  if (command.op === 'delete') return { op: 'delete', name: command.name };
  return { ...command, material: new Redacted(Buffer.from(command.material, 'base64')) };
}
