export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export function summary(values) {
  return { n: values.length, p50: percentile(values, 50), p90: percentile(values, 90), p99: percentile(values, 99) };
}

export const fmt = (ms) => ms.toFixed(3);
