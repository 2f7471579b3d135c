/**
 * What the signer secrets' znode holds, in the layout of Hadoop's `ZKSignerSecretProvider`
 * (hadoop-auth 3.4.x), all numbers big-endian:
 * `int32 layout version (0) ‖ int32 length ‖ next secret ‖ int32 length ‖ current secret ‖
 * int32 length (0: none) ‖ previous secret ‖ int64 next rollover (ms since the epoch)`.
 * The next secret is the one every instance switches to at the next rollover; it is decided one
 * interval ahead, so that a rollover needs no ZooKeeper call to agree on it.
 */
export interface ZkSignerData {
  /** The secret every instance signs with after the next rollover (never empty). */
  readonly next: Buffer;
  /** The secret cookies are signed with now (never empty); cookies of `previous` still verify. */
  readonly current: Buffer;
  /** `undefined` before the first rollover. */
  readonly previous: Buffer | undefined;
  /** When the fleet rolls next, ms since the epoch. */
  readonly nextRolloverMs: number;
}

/** The layout version Hadoop writes and reads (`DATA_VERSION`); a newer one is refused, as Hadoop does. */
export const ZK_SIGNER_DATA_VERSION = 0;

/** The znode's bytes for `data`. */
export function encodeZkSignerData(data: ZkSignerData): Buffer {
  const previous = data.previous ?? Buffer.alloc(0);
  const out = Buffer.alloc(4 * 4 + data.next.length + data.current.length + previous.length + 8);
  let at = out.writeInt32BE(ZK_SIGNER_DATA_VERSION, 0);
  for (const secret of [data.next, data.current, previous]) {
    at = out.writeInt32BE(secret.length, at);
    at += secret.copy(out, at);
  }
  out.writeBigInt64BE(BigInt(data.nextRolloverMs), at);
  return out;
}

/**
 * Reads the znode's bytes. Throws an `Error` saying what is wrong (a newer layout, a length past
 * the end, an empty secret) for data this server must not use.
 */
export function decodeZkSignerData(bytes: Buffer): ZkSignerData {
  let at = 0;
  const need = (n: number, what: string): void => {
    if (at + n > bytes.length) {
      throw new Error(`the signer secrets znode ends inside ${what} (${bytes.length} bytes)`);
    }
  };
  const int32 = (what: string): number => {
    need(4, what);
    const value = bytes.readInt32BE(at);
    at += 4;
    return value;
  };
  const secret = (what: string, optional: boolean): Buffer | undefined => {
    const length = int32(`the length of the ${what} secret`);
    if (length < 0 || (length === 0 && !optional)) {
      throw new Error(`the signer secrets znode gives the ${what} secret a length of ${length}`);
    }
    if (length === 0) return undefined;
    need(length, `the ${what} secret`);
    const value = Buffer.from(bytes.subarray(at, at + length));
    at += length;
    return value;
  };
  const version = int32('the layout version');
  if (version > ZK_SIGNER_DATA_VERSION) {
    throw new Error(
      `the signer secrets znode was written in layout ${version}, newer than the ${ZK_SIGNER_DATA_VERSION} this server reads`,
    );
  }
  const next = secret('next', false) as Buffer;
  const current = secret('current', false) as Buffer;
  const previous = secret('previous', true);
  need(8, 'the next rollover time');
  const nextRolloverMs = Number(bytes.readBigInt64BE(at));
  return { next, current, previous, nextRolloverMs };
}
