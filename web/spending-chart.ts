// A bar chart of spending per day, drawn as SVG nodes (no library, no markup strings). The SVG stretches
// to the card's width, so its labels are HTML below it: text inside it would shrink with a phone's width.
import type { Analytics } from './api.js';
import { h, svg } from './dom.js';
import { sol } from './format.js';

const WIDTH = 720;
const HEIGHT = 200;
const PAD_TOP = 12;
const PAD_BOTTOM = 4;

type Bucket = Analytics['spendingByPeriod'][number];

export function spendingChart(buckets: readonly Bucket[]): HTMLElement {
  if (buckets.length === 0) return h('p', { class: 'muted' }, 'No spending in this period.');
  const max = buckets.reduce((m, b) => (BigInt(b.amount) > m ? BigInt(b.amount) : m), 0n);
  const slot = WIDTH / buckets.length;
  const barWidth = Math.max(2, slot * 0.7);
  const plot = HEIGHT - PAD_TOP - PAD_BOTTOM;
  const bars = buckets.map((bucket, i) => {
    const amount = BigInt(bucket.amount);
    // Ratio in thousandths, computed in bigint so large amounts keep their proportions.
    const ratio = max === 0n ? 0 : Number((amount * 1000n) / max) / 1000;
    const height = amount > 0n ? Math.max(2, ratio * plot) : 0;
    const x = i * slot + (slot - barWidth) / 2;
    return svg(
      'rect',
      {
        class: 'bar',
        x: x.toFixed(1),
        y: (PAD_TOP + plot - height).toFixed(1),
        width: barWidth.toFixed(1),
        height: height.toFixed(1),
        rx: 2,
        'data-period': bucket.period,
        'data-amount': bucket.amount,
      },
      svg(
        'title',
        {},
        `${bucket.period}: ${sol(bucket.amount)} in ${bucket.count} transfer${bucket.count === 1 ? '' : 's'}`,
      ),
    );
  });
  const last = buckets.length - 1;
  const labels = [0, ...(last > 1 ? [Math.floor(last / 2)] : []), ...(last > 0 ? [last] : [])];
  return h(
    'figure',
    { class: 'chart' },
    svg(
      'svg',
      {
        viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
        role: 'img',
        'aria-label': `Spending per day, highest ${sol(max)}`,
        preserveAspectRatio: 'none',
      },
      svg('line', { class: 'baseline', x1: 0, x2: WIDTH, y1: PAD_TOP + plot, y2: PAD_TOP + plot }),
      ...bars,
    ),
    h(
      'div',
      { class: 'chart-axis', 'aria-hidden': 'true' },
      ...labels.map((i) => h('span', { class: 'axis' }, buckets[i]?.period ?? '')),
    ),
    h('figcaption', { class: 'muted' }, `Highest day: ${sol(max)}`),
  );
}

/** Adds a live transfer to its day's bar until the next analytics read replaces the buckets. */
export function addToBucket(buckets: Bucket[], blockTime: string | null, amount: string): void {
  const day = (blockTime ?? new Date().toISOString()).slice(0, 10);
  const bucket = buckets.find((b) => b.period === day);
  if (bucket === undefined) return;
  bucket.amount = (BigInt(bucket.amount) + BigInt(amount)).toString();
  bucket.count += 1;
}
