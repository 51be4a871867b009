// Typed readers of environment variables: every bad value is collected (not thrown at the first), and
// each reader declares how it reads its variable, for the generated configuration table.

export type Env = Readonly<Record<string, string | undefined>>;

/**
 * How the readers below read one variable: its value when unset and what it accepts, in words.
 * scripts/config-docs.ts renders these, with the meanings in src/config-variables.ts, into docs/CONFIGURATION.md.
 */
export interface VariableShape {
  readonly name: string;
  readonly fallback?: string;
  readonly accepts?: string;
}

/**
 * Readers of one variable each: trimmed (blank is unset), the fallback on a bad value, which goes to
 * problems. Each declares its variable's shape into `shapes` (the first declaration of a name counts).
 */
export function createEnvReader(env: Env, problems: string[], shapes?: VariableShape[]) {
  const declare = (shape: VariableShape) => {
    if (shapes !== undefined && !shapes.some((s) => s.name === shape.name)) shapes.push(shape);
  };
  const read = (name: string): string | undefined => {
    declare({ name });
    const value = env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };
  const text = (name: string, fallback: string): string => {
    declare({ name, fallback });
    return read(name) ?? fallback;
  };
  const int = (name: string, fallback: number, min: number, max: number): number => {
    declare({ name, fallback: String(fallback), accepts: `a whole number from ${min} to ${max}` });
    const raw = read(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min || value > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  };
  const bool = (name: string, fallback: boolean): boolean => {
    declare({ name, fallback: String(fallback), accepts: '`true` or `false` (also 1/0, yes/no, on/off)' });
    const raw = read(name)?.toLowerCase();
    if (raw === undefined) return fallback;
    if (['true', '1', 'yes', 'on'].includes(raw)) return true;
    if (['false', '0', 'no', 'off'].includes(raw)) return false;
    problems.push(`${name} must be true or false (got "${raw}")`);
    return fallback;
  };
  const oneOf = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    declare({ name, fallback, accepts: allowed.map((a) => `\`${a}\``).join(', ') });
    const raw = read(name);
    if (raw === undefined) return fallback;
    if ((allowed as readonly string[]).includes(raw)) return raw as T;
    problems.push(`${name} must be one of ${allowed.join(', ')} (got "${raw}")`);
    return fallback;
  };
  const schemes = (protocols: readonly string[]) => protocols.map((p) => `\`${p}//\``).join(' or ');
  const url = (name: string, protocols: readonly string[]): string | undefined => {
    declare({ name, accepts: `${schemes(protocols)} URL` });
    const raw = read(name);
    if (raw === undefined) return undefined;
    try {
      const parsed = new URL(raw);
      if (protocols.includes(parsed.protocol)) return raw;
    } catch {}
    problems.push(`${name} must be a ${protocols.map((p) => `${p}//`).join(' or ')} URL`);
    return undefined;
  };
  const urls = (name: string, protocols: readonly string[]): string[] => {
    declare({ name, accepts: `comma-separated ${schemes(protocols)} URLs` });
    const raw = read(name);
    if (raw === undefined) return [];
    const parts = raw.split(',').map((p) => p.trim());
    const bad = parts.filter((p) => {
      try {
        return !protocols.includes(new URL(p).protocol);
      } catch {
        return true;
      }
    });
    if (bad.length === 0) return parts;
    // Never echo the value: RPC URLs carry API keys.
    problems.push(
      `${name} must be a comma-separated list of ${protocols.map((p) => `${p}//`).join(' or ')} URLs (${bad.length} invalid)`,
    );
    return [];
  };
  return { read, text, int, bool, oneOf, url, urls };
}
