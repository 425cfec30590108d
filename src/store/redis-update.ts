// The update's optimistic parts: the compare-and-set scripts, the hints they check, the retry backoff.
import { LRUCache } from "lru-cache";

export const UPDATE_RETRIES = 10;

/**
 * Compare-and-set: KEYS[1] gets ARGV[1] with a TTL of ARGV[2] s only while it still holds
 * ARGV[3] (no ARGV[3]: only while it is absent; with ARGV[4]: ARGV[3] is the SHA-1 of what it
 * holds). Replies 1 when written, else what the key holds now (0 for nothing), so a retry needs
 * no read of its own.
 */
export const CAS_SCRIPT = `local current = redis.call('GET', KEYS[1])
local seen = current
if ARGV[4] and current then seen = redis.sha1hex(current) end
if seen ~= (ARGV[3] or false) then return current or 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return 1`;
/**
 * The same, only while the lease KEYS[2] still holds the token ARGV[1] (else -1); the record's
 * arguments follow it: ARGV[2] the value, ARGV[3] the TTL, ARGV[4] what it must hold, ARGV[5] sha1.
 */
export const FENCED_CAS_SCRIPT = `if redis.call('GET', KEYS[2]) ~= ARGV[1] then return -1 end
local current = redis.call('GET', KEYS[1])
local seen = current
if ARGV[5] and current then seen = redis.sha1hex(current) end
if seen ~= (ARGV[4] or false) then return current or 0 end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
return 1`;
const MAX_HINTS = 4096;

/**
 * The raw value this process last saw stored under each key (null: absent), least recently seen
 * dropped first, within a character budget. Only a hint: the compare-and-set proves it before
 * anything is written.
 */
export class Hints {
  private readonly values: LRUCache<string, { raw: string | null }> | null;
  constructor(budget: number) {
    this.values =
      budget <= 0
        ? null
        : new LRUCache({
            max: MAX_HINTS,
            maxSize: Math.ceil(budget),
            maxEntrySize: Math.max(1, Math.floor(budget / 8)),
            // lru-cache sizes are positive: an absent value costs one.
            sizeCalculation: (v) => (v.raw?.length ?? 0) + 1,
          });
  }

  get(key: string): string | null | undefined {
    return this.values?.get(key)?.raw;
  }

  set(key: string, raw: string | null): void {
    this.values?.set(key, { raw });
  }

  delete(key: string): void {
    this.values?.delete(key);
  }

  clear(): void {
    this.values?.clear();
  }
}

/** Full jitter over an exponential window: 2, 4, 8 … 128 ms. */
export function backoff(attempt: number): number {
  return Math.random() * Math.min(128, 2 ** (attempt + 1));
}
