// Fitting escaped text into a platform's limits: values are cut before they are escaped, and lines are
// dropped whole, so no cut ever lands inside an escape sequence, an entity or a tag.

export type Escape = (raw: string) => string;

const ELLIPSIS = '…';

/** `escape(raw)` when it fits in `max` characters, else the escape of the longest prefix that fits with `…`. */
export function escapeWithin(raw: string, max: number, escapeText: Escape): string {
  const whole = escapeText(raw);
  if (whole.length <= max) return whole;
  const chars = Array.from(raw); // whole code points: never half a surrogate pair
  let low = 0;
  let high = chars.length;
  // The escaped length grows with the prefix: find the longest prefix whose escape still fits.
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (escapeText(chars.slice(0, mid).join('')).length + ELLIPSIS.length <= max) low = mid;
    else high = mid - 1;
  }
  return `${escapeText(chars.slice(0, low).join(''))}${ELLIPSIS}`;
}

/** As many whole lines as fit in `max` characters (joined by newlines), then `…` when some were left out. */
export function joinLinesWithin(lines: readonly string[], max: number): string {
  const all = lines.join('\n');
  if (all.length <= max) return all;
  const kept: string[] = [];
  let length = 0;
  for (const line of lines) {
    const added = (kept.length === 0 ? 0 : 1) + line.length;
    if (length + added + 1 + ELLIPSIS.length > max) break;
    kept.push(line);
    length += added;
  }
  return kept.length === 0 ? ELLIPSIS : `${kept.join('\n')}\n${ELLIPSIS}`;
}
