// One-time codes against RFC 6238's appendix B test vectors, through both ways a key is written
// (a base32 seed and an otpauth:// URI), and the wait near the end of a period.
import { describe, expect, test } from "bun:test";
import { currentCode, parseTotp, type TotpSpec, totpAt } from "../../../src/secrets/totp.ts";

const B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
function base32(text: string): string {
  let bits = "";
  for (const b of new TextEncoder().encode(text)) bits += b.toString(2).padStart(8, "0");
  let out = "";
  for (let i = 0; i < bits.length; i += 5)
    out += B32[Number.parseInt(bits.slice(i, i + 5).padEnd(5, "0"), 2)];
  return out;
}

const SEEDS = {
  SHA1: "12345678901234567890",
  SHA256: "12345678901234567890123456789012",
  SHA512: "1234567890123456789012345678901234567890123456789012345678901234",
};
const TIMES = [59, 1111111109, 1111111111, 1234567890, 2000000000, 20000000000];
const CODES = {
  SHA1: ["94287082", "07081804", "14050471", "89005924", "69279037", "65353130"],
  SHA256: ["46119246", "68084774", "67062674", "91819424", "90698825", "77737706"],
  SHA512: ["90693936", "25091201", "99943326", "93441116", "38618901", "47863826"],
};

function spec(text: string): TotpSpec {
  const s = parseTotp(text);
  if (typeof s === "string") throw new Error(s);
  return s;
}

describe("RFC 6238 test vectors", () => {
  for (const alg of ["SHA1", "SHA256", "SHA512"] as const) {
    test(`${alg}, 8 digits, 30 s, from an otpauth:// URI`, async () => {
      const s = spec(
        `otpauth://totp/Test:me?secret=${base32(SEEDS[alg])}&algorithm=${alg}&digits=8&period=30`,
      );
      const got = await Promise.all(TIMES.map((t) => totpAt(s, t)));
      expect(got).toEqual(CODES[alg]);
    });
  }

  test("a bare base32 seed is SHA1, 6 digits, 30 s (the last six digits of the vectors)", async () => {
    const s = spec(
      base32(SEEDS.SHA1)
        .toLowerCase()
        .replace(/(.{4})/g, "$1 "),
    );
    const got = await Promise.all(TIMES.map((t) => totpAt(s, t)));
    expect(got).toEqual(CODES.SHA1.map((c) => c.slice(2)));
  });
});

describe("parsing and timing", () => {
  test("what is not a one-time code is refused with a reason that does not quote it", () => {
    expect(parseTotp("not base32 1!")).toBe("the seed is not base32 (A-Z, 2-7)");
    expect(parseTotp("otpauth://hotp/x?secret=GEZDGNBV")).toContain("hotp");
    expect(parseTotp("otpauth://totp/x?secret=GEZDGNBV&algorithm=MD5")).toContain("algorithm");
    expect(parseTotp("otpauth://totp/x?secret=GEZDGNBV&digits=9")).toContain("digits");
    expect(parseTotp("otpauth://totp/x?digits=6")).toContain("secret=");
  });

  test("with fewer than 3 s left in a period, the next period's code is typed", async () => {
    const s = spec(`otpauth://totp/x?secret=${base32(SEEDS.SHA1)}&period=5`);
    // 1.5 s before a 5 s boundary, on the real clock: the code typed is the next step's.
    const wait = 5000 - (Date.now() % 5000) - 1500;
    if (wait > 0) await Bun.sleep(wait);
    const startedIn = Math.floor(Date.now() / 5000);
    const code = await currentCode(s);
    expect(Math.floor(Date.now() / 5000)).toBe(startedIn + 1);
    expect(code).toBe(await totpAt(s, (startedIn + 1) * 5));
  });
});
