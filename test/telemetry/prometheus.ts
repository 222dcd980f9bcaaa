import parsePrometheusTextFormat from 'parse-prometheus-text-format';

interface Sample {
  labels?: Record<string, string>;
  value?: string;
}
export interface Family {
  name: string;
  type: string;
  metrics: Sample[];
}

/** GET /metrics with the bearer token, parsed by a Prometheus text parser. */
export async function scrape(base: string, token?: string): Promise<Family[]> {
  const res = await fetch(`${base}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}: ${await res.text()}`);
  // The parser folds every labelled series of a histogram into one: read as untyped, each of _count, _sum and _bucket
  // is a family of its own with its labels.
  return parsePrometheusTextFormat((await res.text()).replace(/^(# TYPE \S+) histogram$/gm, '$1 untyped')) as Family[];
}

/** The value of the sample of `name` whose labels include `labels` (a histogram's `<name>_count`, `<name>_sum`...). */
export function sample(families: Family[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = families
    .filter((f) => f.name === name)
    .flatMap((f) => f.metrics)
    .find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return found?.value === undefined ? undefined : Number(found.value);
}
