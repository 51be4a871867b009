// The date range of the owner console's "Download CSV" (pure: no DOM): UTC days, the last one included.

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** This month so far: from its first UTC day to today. */
export function defaultExportRange(now: Date): { from: string; to: string } {
  const today = now.toISOString().slice(0, 10);
  return { from: `${today.slice(0, 8)}01`, to: today };
}

/** The query of a range, or the text of what is wrong with it. */
export function readExportRange(from: string, to: string): { from: string; to: string } | string {
  if (!DAY.test(from) || Number.isNaN(Date.parse(from))) return 'From: a day as YYYY-MM-DD';
  if (!DAY.test(to) || Number.isNaN(Date.parse(to))) return 'To: a day as YYYY-MM-DD';
  if (from > to) return 'From must not be after To';
  return { from, to };
}
