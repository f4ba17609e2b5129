const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

let lastTime = -1;
let lastRandom: number[] = [];

/**
 * A ULID-shaped id: 10 chars of millisecond time then 16 random chars. Monotonic within a
 * process: ids made in the same millisecond increment the previous random part, so ids sort in
 * creation order (export relies on it to replay supersession in order).
 */
export function sortableId(
  prefix: "fact" | "ans" | "key" | "ws" | "conv" | "adm" | "wh" | "forget" | "cjob" | "cdec" | "batch",
  now: number = Date.now(),
): string {
  let time = "";
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  if (now === lastTime) {
    let i = lastRandom.length - 1;
    while (i >= 0 && lastRandom[i] === 31) lastRandom[i--] = 0;
    if (i >= 0) lastRandom[i] = (lastRandom[i] ?? 0) + 1;
  } else {
    lastTime = now;
    // the top bit of each digit stays clear, leaving room to increment within the millisecond
    lastRandom = Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte & 15);
  }
  return `${prefix}_${time}${lastRandom.map((d) => CROCKFORD[d]).join("")}`;
}

/** Uniform base62 characters from the CSPRNG (rejection sampling avoids modulo bias). */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of crypto.getRandomValues(new Uint8Array(length * 2))) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}
