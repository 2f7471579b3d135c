// Reads protobuf fields by hand, knowing no .proto file: what a test checks of the bytes the client
// put on the wire, by Ratis's field numbers.

/** The value of a varint field, or the bytes of a length-delimited one. */
export type FieldValue = number | Buffer;

/** Every top-level field of a message, by number, in wire order. */
export function readFields(bytes: Buffer): Map<number, FieldValue[]> {
  const fields = new Map<number, FieldValue[]>();
  let i = 0;
  const varint = (): number => {
    let value = 0;
    let scale = 1;
    for (;;) {
      const b = bytes[i++];
      if (b === undefined) throw new RangeError('truncated varint');
      value += (b & 0x7f) * scale;
      if (b < 0x80) return value;
      scale *= 128;
    }
  };
  while (i < bytes.length) {
    const tag = varint();
    let value: FieldValue;
    if (tag % 8 === 0) value = varint();
    else if (tag % 8 === 2) {
      const length = varint();
      value = bytes.subarray(i, i + length);
      i += length;
    } else throw new Error(`wire type ${tag % 8} not expected here`);
    const field = Math.floor(tag / 8);
    fields.set(field, [...(fields.get(field) ?? []), value]);
  }
  return fields;
}

/** The one value at `path` (field numbers, outermost first), or `undefined`. */
export function field(bytes: Buffer, ...path: number[]): FieldValue | undefined {
  let current: FieldValue = bytes;
  for (const n of path) {
    if (!Buffer.isBuffer(current)) return undefined;
    const values: FieldValue[] | undefined = readFields(current).get(n);
    if (values === undefined) return undefined;
    current = values[0] as FieldValue;
  }
  return current;
}
