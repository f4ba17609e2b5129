/** IP address ranges (CIDR), IPv4 and IPv6: who may speak for a client, and what memoryd never fetches. */
import { isIP } from "node:net";

/** An address range: the address as bytes and how many leading bits must match. */
export interface Cidr {
  bytes: Uint8Array;
  bits: number;
}

/** "10.0.0.0/8", "2001:db8::/32", or one address ("127.0.0.1"); null when it is not one. */
export function parseCidr(text: string): Cidr | null {
  const [address = "", prefix] = text.trim().split("/");
  const bytes = addressBytes(address);
  if (bytes === null) return null;
  const max = bytes.length * 8;
  if (prefix === undefined) return { bytes, bits: max };
  if (!/^\d{1,3}$/u.test(prefix) || Number(prefix) > max) return null;
  return { bytes, bits: Number(prefix) };
}

/** Whether `address` lies in one of the ranges. IPv4-mapped IPv6 addresses count as IPv4. */
export function inRanges(address: string, ranges: readonly Cidr[]): boolean {
  const bytes = addressBytes(address);
  if (bytes === null) return false;
  return ranges.some((range) => range.bytes.length === bytes.length && samePrefix(range.bytes, bytes, range.bits));
}

function samePrefix(a: Uint8Array, b: Uint8Array, bits: number): boolean {
  for (let i = 0; i < bits; i += 8) {
    const take = Math.min(8, bits - i);
    const mask = (0xff << (8 - take)) & 0xff;
    if ((a[i / 8]! & mask) !== (b[i / 8]! & mask)) return false;
  }
  return true;
}

/** IPv4 as 4 bytes (also when written IPv4-mapped), IPv6 as 16; null for anything else. */
export function addressBytes(text: string): Uint8Array | null {
  const address = text.replace(/^\[|\]$/gu, "");
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/iu.exec(address)?.[1];
  const v4 = mapped ?? (isIP(address) === 4 ? address : null);
  if (v4 !== null) return Uint8Array.from(v4.split(".").map(Number));
  if (isIP(address) !== 6) return null;
  const [head = "", tail = ""] = address.split("::");
  const groups = (part: string): number[] => (part === "" ? [] : part.split(":").map((g) => Number.parseInt(g, 16)));
  const left = groups(head);
  const right = address.includes("::") ? groups(tail) : [];
  const all = address.includes("::") ? [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right] : left;
  const bytes = new Uint8Array(16);
  all.forEach((group, i) => {
    bytes[i * 2] = group >> 8;
    bytes[i * 2 + 1] = group & 0xff;
  });
  return bytes;
}
