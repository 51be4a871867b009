// The soak's verdict on its samples: per series, the Theil–Sen line through the samples after warm-up
// (the median of the slopes between every two samples, so one spike or one failed scrape cannot tilt
// it), its growth over that span (slope × span) against the series' bound, and an SVG of every series
// (warm-up shaded, the fitted line drawn). docs/SOAK.md explains the bounds.

export interface Sample {
  /** Seconds since the load started. */
  t: number;
  [series: string]: number;
}

/**
 * A series may grow by at most max(absolute, relative × its median) over the measured span; over a
 * span shorter than SHORT_SPAN_SECONDS (a short run), by max(shortAbsolute, relative × its median).
 */
export interface Bound {
  readonly series: string;
  readonly label: string;
  readonly unit: string;
  readonly absolute: number;
  readonly relative: number;
  /**
   * Memory moves by a GC cycle, which a span of a few minutes may catch on its way up; null: a short run
   * shows the series but does not judge it (another series judges that memory there).
   */
  readonly shortAbsolute?: number | null;
}

/** A measured span shorter than this is a short run's: memory is judged against shortAbsolute. */
export const SHORT_SPAN_SECONDS = 10 * 60;

/** Resources of the service process the soak watches, and how much drift each may show. */
export const BOUNDS: readonly Bound[] = [
  // In a short run RSS follows the heap's last saw-tooth up and, unlike the heap, rarely comes down within
  // it (V8 keeps the freed pages): the heap and the memory outside it judge memory there.
  {
    series: 'rssMb',
    label: 'resident memory',
    unit: 'MB',
    absolute: 24,
    relative: 0.05,
    shortAbsolute: null,
  },
  {
    series: 'offHeapMb',
    label: 'resident memory outside the V8 heap',
    unit: 'MB',
    absolute: 24,
    relative: 0.05,
    shortAbsolute: 40,
  },
  {
    series: 'heapUsedMb',
    label: 'V8 heap used',
    unit: 'MB',
    absolute: 12,
    relative: 0.1,
    shortAbsolute: 150,
  },
  {
    series: 'serviceCores',
    label: 'service CPU',
    unit: ' cores',
    absolute: 0.05,
    relative: 0.2,
    shortAbsolute: 0.15,
  },
  {
    series: 'databaseCores',
    label: 'PostgreSQL CPU',
    unit: ' cores',
    absolute: 0.05,
    relative: 0.2,
    shortAbsolute: 0.15,
  },
  { series: 'fds', label: 'open file descriptors', unit: '', absolute: 32, relative: 0.1 },
  { series: 'sockets', label: 'open sockets', unit: '', absolute: 32, relative: 0.15 },
  { series: 'eventLoopP99Ms', label: 'event-loop delay p99', unit: 'ms', absolute: 20, relative: 0.5 },
  { series: 'cacheEntries', label: 'in-process cache entries', unit: '', absolute: 100, relative: 0.1 },
  { series: 'rateLimitClients', label: 'rate-limit clients', unit: '', absolute: 100, relative: 0.1 },
  { series: 'eventStreams', label: 'open event streams', unit: '', absolute: 6, relative: 0.5 },
  { series: 'liveFeedListeners', label: 'live-feed listeners', unit: '', absolute: 6, relative: 0.5 },
  { series: 'queueDepth', label: 'delivery queue depth', unit: '', absolute: 150, relative: 0.5 },
  { series: 'redisKeys', label: 'Redis keys', unit: '', absolute: 200, relative: 0.1 },
  { series: 'pgConnections', label: 'PostgreSQL connections', unit: '', absolute: 3, relative: 0.2 },
];

export interface Trend {
  readonly series: string;
  readonly label: string;
  readonly unit: string;
  readonly samples: number;
  readonly median: number;
  /** Units per minute. */
  readonly slopePerMinute: number;
  /** Fitted growth from the first to the last measured sample. */
  readonly growth: number;
  readonly allowed: number;
  /** False for a series a short run shows without judging it. */
  readonly judged: boolean;
  readonly ok: boolean;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : sorted[Math.floor(sorted.length / 2)]!;
};

/**
 * Theil–Sen slope of y over x: the median of the slopes between every two points. A steady leak moves
 * every pair alike; a spike or a dropped sample moves only the pairs it is in, which stay a minority.
 */
export function slope(points: readonly (readonly [number, number])[]): number {
  const slopes: number[] = [];
  for (let i = 0; i < points.length; i++) {
    for (let j = i + 1; j < points.length; j++) {
      const [xi, yi] = points[i]!;
      const [xj, yj] = points[j]!;
      if (xj !== xi) slopes.push((yj - yi) / (xj - xi));
    }
  }
  return median(slopes);
}

/** The verdict per series present in the samples, over the samples taken at or after warmupSeconds. */
export function trends(samples: readonly Sample[], warmupSeconds: number): Trend[] {
  const measured = samples.filter((s) => s.t >= warmupSeconds);
  const span = measured.length < 2 ? 0 : measured.at(-1)!.t - measured[0]!.t;
  return BOUNDS.filter((b) => measured.some((s) => typeof s[b.series] === 'number')).map((bound) => {
    const points = measured
      .filter((s) => Number.isFinite(s[bound.series]))
      .map((s) => [s.t, s[bound.series]!] as const);
    const perSecond = slope(points);
    const mid = median(points.map(([, y]) => y));
    const short = span < SHORT_SPAN_SECONDS;
    const judged = !(short && bound.shortAbsolute === null);
    const absolute = short ? (bound.shortAbsolute ?? bound.absolute) : bound.absolute;
    const allowed = Math.max(absolute, bound.relative * mid);
    const growth = perSecond * span;
    return {
      series: bound.series,
      label: bound.label,
      unit: bound.unit,
      samples: points.length,
      median: mid,
      slopePerMinute: perSecond * 60,
      growth,
      allowed,
      judged,
      ok: !judged || growth <= allowed,
    };
  });
}

/** flat, GROWS, or shown (a series a short run does not judge). */
export const verdictWord = (verdict: Trend) => (!verdict.judged ? 'shown' : verdict.ok ? 'flat' : 'GROWS');

/** A figure to three significant digits (whole numbers from 100 on), for the plot and the summary. */
export const round = (value: number) => (Math.abs(value) >= 100 ? value.toFixed(0) : value.toPrecision(3));

/** Small multiples: one panel per series, warm-up shaded grey, samples in blue, the fit in red or green. */
export function renderSvg(
  samples: readonly Sample[],
  warmupSeconds: number,
  verdicts: readonly Trend[],
  title: string,
): string {
  const columns = 3;
  const width = 320;
  const height = 170;
  const pad = { left: 52, right: 10, top: 26, bottom: 24 };
  const rows = Math.ceil(verdicts.length / columns);
  const panels = verdicts.map((verdict, index) => {
    const x0 = (index % columns) * width;
    const y0 = 40 + Math.floor(index / columns) * height;
    return panel(samples, warmupSeconds, verdict, { x0, y0, width, height, pad });
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${columns * width}" height="${40 + rows * height}" font-family="sans-serif" font-size="11">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="10" y="24" font-size="15" font-weight="bold">${escapeXml(title)}</text>`,
    ...panels,
    '</svg>',
  ].join('\n');
}

interface Frame {
  x0: number;
  y0: number;
  width: number;
  height: number;
  pad: { left: number; right: number; top: number; bottom: number };
}

function panel(samples: readonly Sample[], warmupSeconds: number, verdict: Trend, frame: Frame): string {
  const { x0, y0, width, height, pad } = frame;
  const points = samples
    .filter((s) => Number.isFinite(s[verdict.series]))
    .map((s) => [s.t, s[verdict.series]!]);
  const tMax = Math.max(1, ...points.map(([t]) => t!));
  const values = points.map(([, y]) => y!);
  const yMin = Math.min(0, ...values);
  const yMax = Math.max(1, ...values) * 1.1;
  const left = x0 + pad.left;
  const plotWidth = width - pad.left - pad.right;
  const top = y0 + pad.top;
  const plotHeight = height - pad.top - pad.bottom;
  const sx = (t: number) => left + (t / tMax) * plotWidth;
  const sy = (y: number) => top + plotHeight - ((y - yMin) / (yMax - yMin)) * plotHeight;
  const line = points.map(([t, y]) => `${sx(t!).toFixed(1)},${sy(y!).toFixed(1)}`).join(' ');
  const measured = points.filter(([t]) => t! >= warmupSeconds);
  const fit = fittedLine(measured as [number, number][]);
  const colour = verdict.ok ? '#2a9d3a' : '#d62828';
  const unit = verdict.unit === '' ? '' : ` ${verdict.unit.trim()}`;
  // A long heading is set smaller to fit its panel rather than run into the next one.
  const heading = `${verdict.label}${unit}: ${verdictWord(verdict)} (${round(verdict.growth)}${verdict.judged ? ` / ${round(verdict.allowed)}` : ''})`;
  return [
    `<text x="${x0 + 8}" y="${y0 + 16}" font-weight="bold" fill="${colour}"${heading.length > 48 ? ` font-size="${((11 * 48) / heading.length).toFixed(1)}"` : ''}>${escapeXml(heading)}</text>`,
    `<rect x="${left}" y="${top}" width="${((Math.min(warmupSeconds, tMax) / tMax) * plotWidth).toFixed(1)}" height="${plotHeight}" fill="#eeeeee"/>`,
    `<rect x="${left}" y="${top}" width="${plotWidth}" height="${plotHeight}" fill="none" stroke="#999"/>`,
    `<text x="${left - 4}" y="${top + 8}" text-anchor="end">${round(yMax)}</text>`,
    `<text x="${left - 4}" y="${top + plotHeight}" text-anchor="end">${round(yMin)}</text>`,
    `<text x="${left + plotWidth}" y="${top + plotHeight + 14}" text-anchor="end">${(tMax / 60).toFixed(1)} min</text>`,
    `<polyline points="${line}" fill="none" stroke="#1d4ed8" stroke-width="1.2"/>`,
    fit === null
      ? ''
      : `<line x1="${sx(fit.t0).toFixed(1)}" y1="${sy(fit.y0).toFixed(1)}" x2="${sx(fit.t1).toFixed(1)}" y2="${sy(fit.y1).toFixed(1)}" stroke="${colour}" stroke-width="2"/>`,
  ].join('\n');
}

function fittedLine(points: [number, number][]) {
  if (points.length < 2) return null;
  const b = slope(points);
  const intercept = median(points.map(([t, y]) => y - b * t));
  const t0 = points[0]![0];
  const t1 = points.at(-1)![0];
  return { t0, t1, y0: intercept + b * t0, y1: intercept + b * t1 };
}

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
