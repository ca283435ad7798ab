// Overview: health checks, the model, what is loaded (plugins, tools, toolsets, MCP servers) and
// live numbers from /metrics. Health and numbers every 5 s; the deployment's make-up every 30 s.
import * as api from './api.js';
import { h, notice, replace, table } from './dom.js';
import { badge, count, time } from './format.js';
import * as metrics from './metrics.js';

export function mount(main, scope) {
  const health = h('section', { 'aria-labelledby': 'health-h' });
  const numbers = h('section', { 'aria-labelledby': 'numbers-h' });
  const model = h('section', { 'aria-labelledby': 'model-h' });
  const loaded = h('section', { 'aria-labelledby': 'loaded-h' });
  const spend = h('section', { 'aria-labelledby': 'spend-h' });
  replace(main, h('h1', {}, 'Overview'), h('div', { class: 'grid' }, model, numbers), health, spend, loaded);
  replace(spend, h('h2', { id: 'spend-h' }, 'Spend per key this month'), notice('info', 'Loading…'));
  replace(health, h('h2', { id: 'health-h' }, 'Health'), notice('info', 'Loading…'));
  replace(model, h('h2', { id: 'model-h' }, 'Model'), notice('info', 'Loading…'));
  replace(numbers, h('h2', { id: 'numbers-h' }, 'Live numbers'), notice('info', 'Loading…'));
  replace(loaded, h('h2', { id: 'loaded-h' }, 'Plugins, tools and MCP servers'), notice('info', 'Loading…'));

  let detailed = null;
  let models = null;
  scope.poll(5000, async () => {
    try {
      detailed = await api.get('/health/detailed', { signal: scope.signal });
      replace(health, h('h2', { id: 'health-h' }, 'Health'), renderHealth(detailed));
      replace(model, h('h2', { id: 'model-h' }, 'Model'), renderModel(detailed, models));
    } catch (error) {
      if (error.name === 'AbortError') throw error;
      replace(health, h('h2', { id: 'health-h' }, 'Health'), notice('error', `Health unavailable: ${error.message}`));
    }
  });

  let previous = null;
  scope.poll(5000, async () => {
    try {
      const text = await api.text('/metrics', { signal: scope.signal });
      const at = Date.now();
      const samples = metrics.parse(text);
      replace(numbers, h('h2', { id: 'numbers-h' }, 'Live numbers'), renderNumbers(metrics.summarize(samples, at, previous)));
      previous = { samples, at };
    } catch (error) {
      if (error.name === 'AbortError') throw error;
      const why = error.status === 404
        ? 'Metrics are turned off on this server (metrics.enabled: false), so there are no live numbers.'
        : `Metrics unavailable: ${error.message}`;
      replace(numbers, h('h2', { id: 'numbers-h' }, 'Live numbers'), notice(error.status === 404 ? 'empty' : 'error', why));
    }
  });

  scope.poll(30000, async () => {
    const title = h('h2', { id: 'spend-h' }, 'Spend per key this month');
    try {
      const first = new Date().toISOString().slice(0, 8) + '01';
      const usage = await api.get(api.query('/api/usage', { group_by: 'key', from: first }), { signal: scope.signal });
      replace(spend, title, renderSpend(usage));
    } catch (error) {
      if (error.name === 'AbortError') throw error;
      replace(spend, title, notice('error', `Spend unavailable: ${error.message}`));
    }
  });

  scope.poll(30000, async () => {
    try {
      const [capabilities, toolsets, list] = await Promise.all([
        api.get('/v1/capabilities', { signal: scope.signal }),
        api.get('/v1/toolsets', { signal: scope.signal }),
        api.get('/v1/models', { signal: scope.signal }),
      ]);
      models = list;
      if (detailed) replace(model, h('h2', { id: 'model-h' }, 'Model'), renderModel(detailed, models));
      replace(loaded, h('h2', { id: 'loaded-h' }, 'Plugins, tools and MCP servers'), renderLoaded(capabilities, toolsets));
    } catch (error) {
      if (error.name === 'AbortError') throw error;
      replace(loaded, h('h2', { id: 'loaded-h' }, 'Plugins, tools and MCP servers'),
        notice('error', `Capabilities unavailable: ${error.message}`));
    }
  });
}

function details(check) {
  return Object.entries(check)
    .filter(([name]) => name !== 'status')
    .map(([name, value]) => `${name.replaceAll('_', ' ')}: ${value === null ? '—'
      : typeof value === 'object' ? JSON.stringify(value) : value}`)
    .join(' · ');
}

function renderHealth(d) {
  const checks = Object.entries(d.readiness?.checks ?? {});
  return [
    h('p', { class: 'lead' }, 'Overall ', badge(d.status), ' · gateway ', badge(d.gateway_state), ` · version ${d.version}`,
      ` · ${count(d.active_agents)} active agent turns · updated `, time(d.updated_at)),
    table('Readiness checks', ['Check', 'Status', 'Details'],
      checks.map(([name, check]) => [name, badge(check.status), details(check) || '—'])),
  ];
}

function renderModel(d, models) {
  const check = d.readiness?.checks?.model ?? {};
  const name = models?.data?.[0]?.id;
  const reachable = check.reachable === null || check.reachable === undefined ? 'not probed' : check.reachable ? 'yes' : 'no';
  const rows = [
    ['Advertised as', name ?? '…'],
    ['Upstream configured', check.configured === false ? 'no' : 'yes'],
    ['Upstream reachable', reachable],
  ];
  if (check.mode) rows.push(['Mode', check.mode]);
  const advice = check.configured === false
    ? notice('error', 'No upstream model: agent routes answer 503. Set OPENAI_BASE_URL (or model.base_url) and restart.')
    : check.reachable === false
      ? notice('error', 'The upstream model does not answer GET /models. Check model.base_url and that the model server runs.')
      : null;
  return [h('dl', { class: 'pairs' }, rows.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)])), advice];
}

function seconds(value) {
  if (value === null) return '—';
  return value < 1 ? `${Math.round(value * 1000)} ms` : `${value.toFixed(2)} s`;
}

function renderNumbers(n) {
  const rows = [
    ['Active runs', count(n.activeRuns)],
    ['Waiting for approval', count(n.waitingForApproval)],
    ['Requests per minute', n.requestsPerMinute === null ? 'measuring…' : n.requestsPerMinute.toFixed(1)],
    ['Model latency p50 / p95 (since start)', `${seconds(n.latencyP50)} / ${seconds(n.latencyP95)}`],
    ['Model calls (since start)', count(n.modelCalls)],
    ['Tokens since start', `${count(n.promptTokens ?? 0)} prompt · ${count(n.completionTokens ?? 0)} completion`],
  ];
  return h('dl', { class: 'pairs' }, rows.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
}

function renderSpend(usage) {
  if (!usage.data.length) return notice('empty', 'No model calls this month yet.');
  const tokens = (row) => `${count(row.input_tokens)} prompt (${count(row.cached_tokens)} cached) · `
    + `${count(row.output_tokens)} completion (${count(row.reasoning_tokens)} reasoning)`;
  const usd = (value) => `$${Number(value).toFixed(4)}`;
  return [
    table('Spend per key', ['Key', 'Model calls', 'Tokens', 'Cost (USD)'],
      usage.data.map((row) => [row.key, count(row.calls), tokens(row), usd(row.cost_usd)])),
    h('p', { class: 'hint' }, `Total ${usd(usage.total.cost_usd)} for ${count(usage.total.calls)} model calls since `
      + `${usage.from} (UTC), priced with the deployments' price (docs/models.md).`),
  ];
}

function renderLoaded(c, toolsets) {
  const parts = [];
  parts.push(h('h3', {}, 'Plugins'));
  parts.push(table('Started plugins', ['Plugin', 'Version', 'Contributes'],
    (c.plugins ?? []).map((p) => [p.id, p.version, (p.kinds ?? []).join(', ')])));
  parts.push(h('p', { class: 'hint' }, 'Only started plugins are listed; a disabled or failed one is named in the plugins check above and in the server log.'));

  parts.push(h('h3', {}, 'Toolsets'));
  const sets = toolsets?.data ?? [];
  parts.push(sets.length === 0 ? notice('empty', 'No toolsets are loaded.')
    : table('Toolsets', ['Toolset', 'Used by the agent', 'Tools available', 'Tools'],
      sets.map((t) => [t.label ?? t.name, t.enabled ? 'yes' : 'no', t.configured ? 'yes' : 'no', (t.tools ?? []).join(', ')])));

  const servers = Object.entries(c).filter(([name, value]) => name.endsWith('_servers') && Array.isArray(value));
  parts.push(h('h3', {}, 'MCP and other tool servers'));
  const rows = servers.flatMap(([source, list]) => list.map((s) =>
    [s.name, source.replace(/_servers$/, ''), s.transport, badge(s.status), count(s.tools), s.reason ?? '—']));
  parts.push(rows.length === 0
    ? notice('empty', 'No tool servers are configured. Add an mcp_servers: block to config.yaml to use MCP tools.')
    : table('Tool servers', ['Server', 'Source', 'Transport', 'Status', 'Tools', 'Reason'], rows));

  const features = Object.entries(c.features ?? {}).filter(([, v]) => v === true).map(([k]) => k);
  parts.push(h('h3', {}, 'Capabilities'));
  parts.push(h('p', {}, `Runtime: ${c.runtime?.mode ?? '—'} (${c.runtime?.tool_execution ?? '—'} tools). `,
    `${Object.keys(c.endpoints ?? {}).length} named endpoints. Features on: `, features.join(', ') || 'none', '.'));
  return parts;
}
