// Runs: the list (newest first, live), a status filter and search, and a form to start a run.
import * as api from './api.js';
import { field, h, notice, replace, table, whenChanged } from './dom.js';
import { badge, code, LIVE, snippet, time } from './format.js';
import * as router from './router.js';

const STATUSES = ['queued', 'running', 'waiting_for_approval', 'requires_action', 'stopping', 'completed', 'failed', 'cancelled', 'interrupted'];
const JOB_ID = /^[0-9a-f]{12}$/;
const PAGE = 25;

export function mount(main, scope, { query }) {
  let status = query.get('status') ?? '';
  let search = query.get('q') ?? '';
  let limit = PAGE;

  const statusSelect = h('select', { name: 'status' },
    h('option', { value: '' }, 'Any status'),
    h('option', { value: LIVE.join(',') }, 'Live (queued, running, waiting, stopping)'),
    STATUSES.map((s) => h('option', { value: s }, s.replaceAll('_', ' '))));
  statusSelect.value = status;
  const searchInput = h('input', { type: 'search', name: 'q', value: search, placeholder: 'run_…, a session id or a job id' });
  const filters = h('form', { class: 'filters', role: 'search' },
    field('Status', statusSelect),
    field('Search', searchInput, 'A run id opens that run; 12 hex digits filter by job; anything else by session.'),
    h('button', { type: 'submit' }, 'Apply'));
  const list = h('div', { 'aria-live': 'polite' }, notice('info', 'Loading…'));
  const more = h('button', { type: 'button', hidden: true }, 'Show more');
  const show = whenChanged(list);

  replace(main, h('h1', {}, 'Runs'), newRunForm(scope), filters, list, more);

  const refresh = async () => {
    try {
      const params = { limit, status };
      const term = search.trim();
      if (JOB_ID.test(term)) params.job_id = term;
      else if (term) params.session_id = term;
      const page = await api.get(api.query('/v1/runs', params), { signal: scope.signal });
      show(page.data, () => render(page.data, Boolean(status || term)));
      more.hidden = !page.has_more || limit >= 100;
    } catch (error) {
      if (error.name === 'AbortError') throw error;
      show.reset();
      replace(list, notice('error', `Could not list runs: ${error.message}`));
    }
  };

  filters.addEventListener('submit', (event) => {
    event.preventDefault();
    const term = searchInput.value.trim();
    if (term.startsWith('run_')) {
      router.navigate(`/runs/${encodeURIComponent(term)}`);
      return;
    }
    status = statusSelect.value;
    search = term;
    limit = PAGE;
    router.remember('/runs', { status, q: search });
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

function render(runs, filtered) {
  if (runs.length === 0) {
    return filtered
      ? notice('empty', 'No run matches this filter. Clear the search or pick another status.')
      : notice('empty', 'No runs yet. Start one with the form above, or send POST /v1/runs; job firings show up here too.');
  }
  return table('Runs, newest first', ['Run', 'Status', 'Created', 'Updated', 'Session', 'Job', 'Last event'],
    runs.map((r) => [
      h('a', { href: router.href(`/runs/${encodeURIComponent(r.run_id)}`) }, code(r.run_id)),
      badge(r.status),
      time(r.created_at),
      time(r.updated_at),
      snippet(r.session_id, 32),
      r.job_id ? h('a', { href: router.href(`/jobs/${r.job_id}`) }, code(r.job_id)) : '—',
      r.last_event ?? '—',
    ]));
}

function newRunForm(scope) {
  const prompt = h('textarea', { name: 'input', rows: '3', required: true });
  const session = h('input', { type: 'text', name: 'session_id', autocomplete: 'off' });
  const instructions = h('input', { type: 'text', name: 'instructions', autocomplete: 'off' });
  const status = h('div', { 'aria-live': 'polite' });
  const form = h('form', { class: 'stack' },
    field('Prompt', prompt),
    h('div', { class: 'row' },
      field('Session id (optional)', session, 'Runs with one session id share a transcript.'),
      field('Instructions (optional)', instructions, 'An extra system prompt for this run.')),
    h('button', { type: 'submit', class: 'primary' }, 'Start run'), status);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const input = prompt.value.trim();
    if (!input) {
      replace(status, notice('error', 'Write a prompt first.'));
      prompt.focus();
      return;
    }
    const body = { input };
    if (session.value.trim()) body.session_id = session.value.trim();
    if (instructions.value.trim()) body.instructions = instructions.value.trim();
    replace(status, notice('info', 'Starting…'));
    try {
      const started = await api.post('/v1/runs', body, { signal: scope.signal });
      router.navigate(`/runs/${encodeURIComponent(started.run_id)}`);
    } catch (error) {
      if (error.name !== 'AbortError') replace(status, notice('error', `The run was not started: ${error.message}`));
    }
  });
  return h('details', { class: 'card' }, h('summary', {}, 'Start a new run'), form);
}
