/** One cache contract, two implementations (in-process LRU, Redis). Failures read as misses. */
export interface Cache {
  readonly kind: 'memory' | 'redis';
  /**
   * The parsed JSON value, or undefined on a miss (or when the backend is unreachable). Treat it as
   * read-only: the in-process cache hands every hit the same frozen value.
   */
  get<T>(key: string): Promise<T | undefined>;
  /** Stores a JSON value for ttlSeconds; tags let one call evict a group of keys. */
  set(key: string, value: unknown, ttlSeconds: number, tags?: readonly string[]): Promise<void>;
  /**
   * The bytes stored with setBody, or undefined on a miss. No JSON round trip either way: a cached
   * response body is handed out as the very bytes that were stored (treat them as read-only).
   */
  getBody(key: string): Promise<Buffer | undefined>;
  /** Stores bytes as they are for ttlSeconds, under tags like set. */
  setBody(key: string, body: Buffer, ttlSeconds: number, tags?: readonly string[]): Promise<void>;
  delete(...keys: string[]): Promise<void>;
  /** Evicts every key stored with any of these tags. */
  deleteByTag(...tags: string[]): Promise<void>;
  /** Stores the key only when absent; true when this call stored it (a single-use marker). */
  setIfAbsent(key: string, ttlSeconds: number): Promise<boolean>;
  /** Atomically adds one to a counter living ttlSeconds from its first increment. */
  increment(key: string, ttlSeconds: number): Promise<number>;
  /** Drops expired entries (the memory cache); a no-op where the backend expires keys itself. */
  purgeExpired(): Promise<number>;
  /** Entries this process holds (the memory cache's values and markers, expired ones not yet purged); 0 for Redis. */
  localEntries(): number;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
