// Reads the Prometheus text exposition of GET /metrics into the few numbers the overview shows.

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Every sample: [{name, labels: {…}, value}]. Comments and malformed lines are skipped. */
export function parse(text) {
  const samples = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const found = SAMPLE.exec(line);
    if (!found) continue;
    const labels = {};
    for (const [, name, value] of (found[2] ?? '').matchAll(LABEL)) {
      labels[name] = value.replace(/\\(.)/g, (_, c) => (c === 'n' ? '\n' : c));
    }
    const value = Number(found[3]);
    if (!Number.isNaN(value)) samples.push({ name: found[1], labels, value });
  }
  return samples;
}

/** The sum of every sample named name whose labels pass keep. */
export function sum(samples, name, keep = () => true) {
  let total = 0;
  let seen = false;
  for (const s of samples) {
    if (s.name === name && keep(s.labels)) {
      total += s.value;
      seen = true;
    }
  }
  return seen ? total : null;
}

/** A histogram's cumulative buckets summed over its label sets: [{le, count}] by ascending le. */
export function buckets(samples, histogram) {
  const byBound = new Map();
  for (const s of samples) {
    if (s.name !== `${histogram}_bucket`) continue;
    const le = s.labels.le === '+Inf' ? Infinity : Number(s.labels.le);
    byBound.set(le, (byBound.get(le) ?? 0) + s.value);
  }
  return [...byBound.entries()].map(([le, count]) => ({ le, count })).sort((a, b) => a.le - b.le);
}

/**
 * The q-quantile of cumulative buckets, interpolated inside its bucket the way Prometheus'
 * histogram_quantile does; null without observations. In the +Inf bucket it is the highest bound.
 */
export function quantile(q, cumulative) {
  if (cumulative.length === 0) return null;
  const total = cumulative[cumulative.length - 1].count;
  if (!total) return null;
  const rank = q * total;
  let lowerBound = 0;
  let lowerCount = 0;
  for (const { le, count } of cumulative) {
    if (count >= rank) {
      if (le === Infinity) return lowerBound;
      const inBucket = count - lowerCount;
      return inBucket === 0 ? le : lowerBound + (le - lowerBound) * ((rank - lowerCount) / inBucket);
    }
    lowerBound = le;
    lowerCount = count;
  }
  return lowerBound;
}

/**
 * The overview's numbers from one scrape, plus requests per minute when an earlier scrape
 * (previous: {samples, at}) is given.
 */
export function summarize(samples, at, previous) {
  const requests = sum(samples, 'caduceus_http_requests_total');
  let requestsPerMinute = null;
  if (previous && requests !== null) {
    const before = sum(previous.samples, 'caduceus_http_requests_total') ?? 0;
    const minutes = (at - previous.at) / 60000;
    if (minutes > 0) requestsPerMinute = Math.max(0, requests - before) / minutes;
  }
  const latency = buckets(samples, 'caduceus_model_call_duration_seconds');
  return {
    activeRuns: sum(samples, 'caduceus_runs_active'),
    waitingForApproval: sum(samples, 'caduceus_runs_waiting_for_approval'),
    requestsPerMinute,
    modelCalls: sum(samples, 'caduceus_model_calls_total'),
    latencyP50: quantile(0.5, latency),
    latencyP95: quantile(0.95, latency),
    promptTokens: sum(samples, 'caduceus_model_tokens_total', (l) => l.kind === 'prompt'),
    completionTokens: sum(samples, 'caduceus_model_tokens_total', (l) => l.kind === 'completion'),
  };
}
