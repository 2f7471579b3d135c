// HPACK (RFC 7541): the header compression of HTTP/2.
export { fieldPairs, HpackDecoder, HPACK_ENTRY_OVERHEAD, type HpackDecoderOptions } from './hpack-decoder.js';
export { encodeHeaderBlock, type EncodeHeaderBlockOptions } from './hpack-encoder.js';
export {
  decodeInteger,
  encodeInteger,
  encodedIntegerLength,
  HPACK_MAX_INTEGER,
  type HpackCursor,
} from './hpack-integer.js';
export { HPACK_STATIC_TABLE, HPACK_STATIC_TABLE_LENGTH, staticTableNameIndex } from './hpack-static-table.js';
export {
  HUFFMAN_CODE_LENGTHS,
  HUFFMAN_CODES,
  huffmanDecode,
  huffmanEncode,
  huffmanEncodedLength,
  huffmanEncodeInto,
} from './huffman.js';
