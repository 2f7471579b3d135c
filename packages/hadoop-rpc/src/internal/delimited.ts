// Reading a frame body as a sequence of varint-delimited messages (Hadoop's `writeDelimitedTo`).
import protobuf from 'protobufjs/minimal.js';

/** Splits `body` into its delimited messages; throws when a length runs past the end. */
export function splitDelimited(body: Uint8Array, maxMessages: number): Uint8Array[] {
  const reader = protobuf.Reader.create(body);
  const out: Uint8Array[] = [];
  while (reader.pos < body.length) {
    if (out.length === maxMessages) {
      throw new RangeError(`${body.length - reader.pos} bytes left over after ${maxMessages} message(s)`);
    }
    const length = reader.uint32();
    if (length > body.length - reader.pos) {
      throw new RangeError(`a message of ${length} bytes runs past the end of a ${body.length}-byte frame`);
    }
    out.push(body.subarray(reader.pos, reader.pos + length));
    reader.pos += length;
  }
  return out;
}
