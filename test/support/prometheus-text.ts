// A strict reader of the Prometheus text exposition format 0.0.4: every line must be valid, every
// family declares HELP and TYPE before its samples, histograms are complete.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  help: string | undefined;
  type: string | undefined;
  samples: Sample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const HELP = new RegExp(`^# HELP (${NAME}) (.*)$`);
const TYPE = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`);
const SAMPLE = new RegExp(`^(${NAME})(\\{(.*)\\})? (\\S+)( -?\\d+)?$`);
const LABEL = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\\\|\\"|\\n)*)"(,|$)/;
// Prometheus reads values with Go's ParseFloat: NaN and Inf in any letter case.
const VALUE = /^([+-]?(nan|inf|infinity)|[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?)$/i;
const SUFFIXES: Record<string, readonly string[]> = {
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['', '_sum', '_count'],
};

function parseLabels(text: string, lineNo: number): Record<string, string> {
  const labels: Record<string, string> = {};
  let rest = text;
  while (rest.length > 0) {
    const match = LABEL.exec(rest);
    if (match === null) throw new Error(`line ${lineNo}: bad label set {${text}}`);
    const [whole, name, value] = match;
    if (name! in labels) throw new Error(`line ${lineNo}: label ${name} repeated`);
    labels[name!] = value!.replace(/\\(["\\n])/g, (_m, c: string) => (c === 'n' ? '\n' : c));
    rest = rest.slice(whole.length);
  }
  return labels;
}

function toNumber(text: string): number {
  const lower = text.toLowerCase().replace('infinity', 'inf');
  if (lower.endsWith('nan')) return Number.NaN;
  if (lower.endsWith('inf'))
    return lower.startsWith('-') ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  return Number(text);
}

/** Parses the exposition text; throws naming the first offending line. */
export function assertPrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const family = (name: string) => {
    let found = families.get(name);
    if (found === undefined) {
      found = { help: undefined, type: undefined, samples: [] };
      families.set(name, found);
    }
    return found;
  };
  const owner = (sampleName: string): string | undefined => {
    for (const [name, f] of families) {
      const suffixes = SUFFIXES[f.type ?? ''] ?? [''];
      if (suffixes.some((s) => `${name}${s}` === sampleName)) return name;
    }
    return undefined;
  };
  if (!text.endsWith('\n')) throw new Error('exposition must end with a newline');
  text
    .slice(0, -1)
    .split('\n')
    .forEach((line, index) => {
      const lineNo = index + 1;
      if (line === '') return;
      const help = HELP.exec(line);
      if (help !== null) {
        const f = family(help[1]!);
        if (f.help !== undefined) throw new Error(`line ${lineNo}: second HELP for ${help[1]}`);
        f.help = help[2];
        return;
      }
      const type = TYPE.exec(line);
      if (type !== null) {
        const f = family(type[1]!);
        if (f.type !== undefined || f.samples.length > 0)
          throw new Error(`line ${lineNo}: TYPE out of place`);
        f.type = type[2];
        return;
      }
      if (line.startsWith('#')) throw new Error(`line ${lineNo}: unexpected comment: ${line}`);
      const sample = SAMPLE.exec(line);
      if (sample === null || !VALUE.test(sample[4]!))
        throw new Error(`line ${lineNo}: not a sample: ${line}`);
      const name = owner(sample[1]!);
      if (name === undefined) throw new Error(`line ${lineNo}: sample ${sample[1]} has no TYPE before it`);
      const labels = parseLabels(sample[3] ?? '', lineNo);
      families.get(name)!.samples.push({ name: sample[1]!, labels, value: toNumber(sample[4]!) });
    });

  for (const [name, f] of families) {
    if (f.help === undefined || f.type === undefined) throw new Error(`${name} lacks HELP or TYPE`);
    if (f.type === 'histogram') assertHistogram(name, f);
  }
  return families;
}

/** Buckets carry `le`, rise monotonically, end at +Inf, and that bucket equals _count. */
function assertHistogram(name: string, f: Family): void {
  const series = new Map<string, Sample[]>();
  for (const sample of f.samples) {
    const { le, ...rest } = sample.labels;
    const key = JSON.stringify(rest);
    series.set(key, [...(series.get(key) ?? []), sample]);
    if (sample.name === `${name}_bucket` && le === undefined) throw new Error(`${name}_bucket without le`);
  }
  for (const [key, samples] of series) {
    const buckets = samples.filter((s) => s.name === `${name}_bucket`);
    const count = samples.find((s) => s.name === `${name}_count`);
    const inf = buckets.find((s) => s.labels.le === '+Inf');
    if (inf === undefined || count === undefined || inf.value !== count.value) {
      throw new Error(`${name}${key}: +Inf bucket and _count disagree`);
    }
    buckets.reduce((previous, s) => {
      if (s.value < previous) throw new Error(`${name}${key}: buckets decrease`);
      return s.value;
    }, 0);
  }
}
