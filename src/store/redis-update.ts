// The update's optimistic parts: the compare-and-set scripts, the hints they check, the retry backoff.

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
 * The raw value this process last saw stored under each key (null: absent), newest last, within
 * a character budget. Only a hint: the compare-and-set proves it before anything is written.
 */
export class Hints {
  private readonly values = new Map<string, string | null>();
  private chars = 0;
  constructor(private readonly budget: number) {}

  get(key: string): string | null | undefined {
    return this.values.get(key);
  }

  set(key: string, raw: string | null): void {
    this.delete(key);
    const size = raw?.length ?? 0;
    if (this.budget === 0 || size > this.budget / 8) return;
    this.values.set(key, raw);
    this.chars += size;
    // A Map iterates in insertion order, so the first keys are the least recently seen.
    for (const old of this.values.keys()) {
      if (this.chars <= this.budget && this.values.size <= MAX_HINTS) break;
      this.delete(old);
    }
  }

  delete(key: string): void {
    if (!this.values.has(key)) return;
    this.chars -= this.values.get(key)?.length ?? 0;
    this.values.delete(key);
  }

  clear(): void {
    this.values.clear();
    this.chars = 0;
  }
}

/** Full jitter over an exponential window: 2, 4, 8 … 128 ms. */
export function backoff(attempt: number): number {
  return Math.random() * Math.min(128, 2 ** (attempt + 1));
}
