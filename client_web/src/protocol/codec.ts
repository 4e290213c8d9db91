/**
 * The wire codec: one binary WebSocket message = one msgpack map with a "type" field
 * (docs/protocol.md). Numbers that are not integers travel as float64 (never float32), so
 * event logs arrive exactly; integral numbers are packed as msgpack integers, which the
 * server's field checkers accept wherever a number is expected.
 */

import { Decoder, Encoder } from "@msgpack/msgpack";

const encoder = new Encoder({ ignoreUndefined: true, forceFloat32: false });
const decoder = new Decoder({ useBigInt64: false });

/** Pack one message map (fields left undefined are omitted). */
export function encodeMessage(msg: object): Uint8Array<ArrayBuffer> {
  return encoder.encode(msg) as Uint8Array<ArrayBuffer>;
}

/** Unpack one server frame into its message map; throws Error when it is not a map with a string type. */
export function decodeMessage(data: ArrayBuffer | Uint8Array): { type: string; [k: string]: unknown } {
  const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
  const msg = decoder.decode(bytes) as any;
  if (msg === null || typeof msg !== "object" || Array.isArray(msg) || typeof msg.type !== "string") {
    throw new Error("frame: not a message map with a type");
  }
  return msg;
}
