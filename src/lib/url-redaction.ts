// Keeping URLs' paths and queries (where providers put API keys) out of logs and error texts.

/** scheme://host of a URL; never its path, query or credentials. */
export function urlLabel(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}`;
}

/**
 * Text replacements for secret-bearing URLs: each full URL becomes its scheme and host, a bare
 * path-and-query becomes [redacted]. Longest first, so a URL is replaced whole before its own path is.
 */
export function urlReplacements(urls: Iterable<string>): [string, string][] {
  const pairs = new Map<string, string>();
  for (const url of urls) {
    const parsed = new URL(url);
    const label = urlLabel(url);
    pairs.set(url, label);
    pairs.set(parsed.href, label);
    const secretPart = `${parsed.pathname}${parsed.search}`;
    if (secretPart.length > 4) pairs.set(secretPart, '/[redacted]');
  }
  return [...pairs].sort((a, b) => b[0].length - a[0].length);
}

/** Replaces every occurrence of each literal text, in the order given. */
export function applyReplacements(
  text: string,
  replacements: readonly (readonly [string, string])[],
): string {
  let out = text;
  for (const [secret, label] of replacements) if (out.includes(secret)) out = out.split(secret).join(label);
  return out;
}
