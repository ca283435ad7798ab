// Webhooks: the deliveries of the signed-in key's events (the admin key's: everyone's), newest first, with a
// status filter, each one's attempts, last answer and next attempt, and a Redeliver button (same webhook-id).
import * as api from './api.js';
import { action, field, h, notice, replace, table, whenChanged } from './dom.js';
import { badge, code, snippet, time } from './format.js';
import * as router from './router.js';

const STATUSES = ['pending', 'delivered', 'failed'];
const PAGE = 25;

export function mount(main, scope, { query }) {
  let status = query.get('status') ?? '';
  let limit = PAGE;
  const statusSelect = h('select', { name: 'status' },
    h('option', { value: '' }, 'Any status'),
    STATUSES.map((s) => h('option', { value: s }, s)));
  statusSelect.value = status;
  const filters = h('form', { class: 'filters', role: 'search' }, field('Status', statusSelect),
    h('button', { type: 'submit' }, 'Apply'));
  const problem = h('div', { 'aria-live': 'assertive' });
  const list = h('div', { 'aria-live': 'polite' }, notice('info', 'Loading…'));
  const more = h('button', { type: 'button', hidden: true }, 'Show more');
  const show = whenChanged(list);
  replace(main, h('h1', {}, 'Webhooks'),
    h('p', { class: 'muted' }, 'Signed messages sent when a run, job or background response ends or waits. '
      + 'A failed delivery can be sent again with its webhook-id.'), filters, problem, list, more);

  const refresh = async () => {
    try {
      const page = await api.get(api.query('/api/webhooks/deliveries', { limit, status }), { signal: scope.signal });
      show(page.data, () => render(page.data, Boolean(status)));
      more.hidden = !page.has_more || limit >= 100;
    } catch (error) {
      if (error.name === 'AbortError') throw error;
      show.reset();
      replace(list, notice('error', `Could not list the deliveries: ${error.message}`));
    }
  };

  const render = (deliveries, filtered) => {
    if (deliveries.length === 0) {
      return filtered ? notice('empty', 'No delivery has this status.')
        : notice('empty', 'No webhook deliveries yet. Name a "webhook" on a run, a job or a background response, '
          + 'or configure webhooks.endpoints.');
    }
    return table('Webhook deliveries, newest first', ['Event', 'Status', 'URL', 'Attempts', 'Last answer', 'Created',
      'Next attempt', ''],
    deliveries.map((d) => [
      h('span', {}, d.event_type, h('br'), code(d.webhook_id)),
      badge(d.status),
      snippet(d.url, 48),
      String(d.attempts),
      d.last_error ? snippet(d.last_error, 60) : d.last_status ?? '—',
      time(d.created_at),
      time(d.next_attempt_at),
      action('Redeliver', async () => {
        try {
          await api.post(`/api/webhooks/deliveries/${encodeURIComponent(d.id)}/redeliver`, {}, { signal: scope.signal });
          replace(problem);
          await refresh();
        } catch (error) {
          if (error.name !== 'AbortError') replace(problem, notice('error', `Not redelivered: ${error.message}`));
        }
      }, { 'aria-label': `Redeliver ${d.id}` }),
    ]));
  };

  filters.addEventListener('submit', (event) => {
    event.preventDefault();
    status = statusSelect.value;
    limit = PAGE;
    router.remember('/webhooks', { status });
    show.reset();
    replace(list, notice('info', 'Loading…'));
    refresh().catch(() => {});
  });
  statusSelect.addEventListener('change', () => filters.requestSubmit());
  more.addEventListener('click', () => {
    limit = Math.min(100, limit + PAGE);
    refresh().catch(() => {});
  });
  scope.poll(3000, refresh);
}
