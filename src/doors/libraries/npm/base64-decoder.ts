import { LibraryError } from "../../../libraries/index.ts";

const notBase64 = /[^A-Za-z0-9+/=]/;

/**
 * Decodes standard base64 arriving in pieces, strictly: Buffer's own decoder skips characters
 * outside the alphabet, which would let a corrupted attachment through as other bytes. Padding
 * may only end the text, and the text must come in whole groups of four.
 */
export function createBase64Decoder(): {
  push(text: Buffer): Buffer;
  end(): Buffer;
} {
  let carry = "";
  let padded = false;
  const refuse = (why: string) => new LibraryError(400, `attachment data is not base64: ${why}`);
  return {
    push(text) {
      if (text.length === 0) return Buffer.alloc(0);
      if (padded && carry === "") throw refuse("text after the padding");
      const s = carry + text.toString("latin1");
      if (notBase64.test(s)) throw refuse("a character outside the base64 alphabet");
      const pad = s.indexOf("=");
      if (pad >= 0) {
        if (!/^={1,2}$/.test(s.slice(pad))) throw refuse("padding inside the text");
        padded = true;
      }
      const whole = s.length - (s.length % 4);
      carry = s.slice(whole);
      return Buffer.from(s.slice(0, whole), "base64");
    },
    end() {
      if (carry.length > 0) throw refuse("its length is not a multiple of 4");
      return Buffer.alloc(0);
    },
  };
}
