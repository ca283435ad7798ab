// Jobs: the list with state and next run, a job's page with its run history, and one form for
// creating and editing whose schedule is checked by the server as you type (POST /api/jobs/preview).
import * as api from './api.js';
import { action, field, h, notice, replace, table, whenChanged } from './dom.js';
import { badge, code, longText, snippet, time, usage } from './format.js';
import { debounce } from './live.js';
import * as router from './router.js';

export function mount(main, scope, params) {
  if (params.id) mountJob(main, scope, params.id);
  else mountList(main, scope);
}

// ---- list -------------------------------------------------------------------------------------

function mountList(main, scope) {
  const list = h('div', { 'aria-live': 'polite' }, notice('info', 'Loading…'));
  const show = whenChanged(list);
  const refresh = async () => {
    try {
      const { jobs } = await api.get('/api/jobs?include_disabled=true', { signal: scope.signal });
      show(jobs, () => jobs.length === 0
        ? notice('empty', 'No jobs yet. Create one above: a prompt the agent runs on a schedule (every 30m, 0 9 * * *, a time).')
        : table('Jobs', ['Job', 'Schedule', 'State', 'Next run', 'Last run', 'Actions'], jobs.map((job) => [
          h('a', { href: router.href(`/jobs/${job.id}`) }, job.name),
          job.schedule_display ?? job.schedule?.display ?? '—',
          badge(job.state),
          time(job.next_run_at),
          job.last_run_at ? [time(job.last_run_at), ' ', badge(job.last_status === 'ok' ? 'ok' : 'error')] : '—',
          h('div', { class: 'buttons' }, jobActions(scope, job, refresh, () => refresh())),
        ])));
    } catch (error) {
      if (error.name === 'AbortError') throw error;
      show.reset();
      replace(list, notice('error', `Could not list jobs: ${error.message}`));
    }
  };
  const form = jobForm(scope, null, async (body) => {
    const { job } = await api.post('/api/jobs', body, { signal: scope.signal });
    router.navigate(`/jobs/${job.id}`);
  });
  replace(main, h('h1', {}, 'Jobs'),
    h('details', { class: 'card' }, h('summary', {}, 'Create a job'), form), list);
  scope.poll(5000, refresh);
}

/** Run now, pause or resume, delete (after a confirmation). */
function jobActions(scope, job, refresh, afterDelete) {
  const path = `/api/jobs/${job.id}`;
  const report = (error) => {
    if (error.name !== 'AbortError') alertBox(scope, `${job.name}: ${error.message}`);
  };
  return [
    action('Run now', async () => {
      try {
        await api.post(`${path}/run`, {}, { signal: scope.signal });
        await refresh();
      } catch (error) {
        report(error);
      }
    }, { 'aria-label': `Run ${job.name} now` }),
    job.enabled
      ? action('Pause', async () => {
        try {
          await api.post(`${path}/pause`, {}, { signal: scope.signal });
          await refresh();
        } catch (error) {
          report(error);
        }
      }, { 'aria-label': `Pause ${job.name}` })
      : action('Resume', async () => {
        try {
          await api.post(`${path}/resume`, {}, { signal: scope.signal });
          await refresh();
        } catch (error) {
          report(error);
        }
      }, { 'aria-label': `Resume ${job.name}` }),
    action('Delete', async () => {
      if (!window.confirm(`Delete the job "${job.name}"? Its runs stay in the run list until their retention ends.`)) return;
      try {
        await api.del(path, { signal: scope.signal });
        await afterDelete();
      } catch (error) {
        report(error);
      }
    }, { class: 'danger', 'aria-label': `Delete ${job.name}` }),
  ];
}

/** A failure of a row's button, shown at the top of the page until the next one. */
function alertBox(scope, message) {
  const main = document.getElementById('page');
  main.querySelector('.job-alert')?.remove();
  main.querySelector('h1')?.after(h('p', { class: 'notice error job-alert', role: 'alert' }, message));
}

// ---- one job ---------------------------------------------------------------------------------

function mountJob(main, scope, id) {
  const path = `/api/jobs/${encodeURIComponent(id)}`;
  const title = h('h1', {}, 'Job ', code(id));
  const facts = h('div', { 'aria-live': 'polite' }, notice('info', 'Loading…'));
  const buttons = h('div', { class: 'buttons' });
  const editor = h('details', { class: 'card' }, h('summary', {}, 'Edit'));
  const history = h('div', {}, notice('info', 'Loading…'));
  let formFor = null;
  const showFacts = whenChanged(facts);
  const showHistory = whenChanged(history);

  replace(main, h('p', {}, h('a', { href: router.href('/jobs') }, '← All jobs')), title, facts, buttons, editor,
    h('h2', {}, 'Run history'), history);

  const refresh = async () => {
    let job;
    try {
      ({ job } = await api.get(path, { signal: scope.signal }));
    } catch (error) {
      if (error.name === 'AbortError') throw error;
      showFacts.reset();
      replace(facts, notice('error', error.status === 404
        ? 'There is no such job (it was deleted, or it belongs to another key).'
        : `Could not load the job: ${error.message}`));
      buttons.hidden = true;
      editor.hidden = true;
      return;
    }
    replace(title, 'Job ', job.name);
    showFacts(job, () => {
      const rows = [
        ['Id', code(job.id)], ['State', badge(job.state)],
        ['Schedule', job.schedule_display ?? job.schedule?.display ?? '—'],
        ['Next run', time(job.next_run_at)], ['Last run', time(job.last_run_at)],
        ['Last status', job.last_status ? badge(job.last_status) : '—'],
        ['Repeats', job.repeat?.times ? `${job.repeat.completed ?? 0} of ${job.repeat.times}` : `${job.repeat?.completed ?? 0} so far, no limit`],
        ['Created', time(job.created_at)],
      ];
      if (job.last_error) rows.push(['Last error', job.last_error]);
      if (job.last_run_id) rows.push(['Last run id', h('a', { href: router.href(`/runs/${job.last_run_id}`) }, code(job.last_run_id))]);
      rows.push(['Prompt', longText(job.prompt, 400)]);
      replace(buttons, jobActions(scope, job, refresh, () => router.navigate('/jobs')));
      return h('dl', { class: 'pairs' }, rows.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
    });
    if (formFor !== job.id) {
      formFor = job.id;
      replace(editor, h('summary', {}, 'Edit'), jobForm(scope, job, async (body) => {
        await api.patch(path, body, { signal: scope.signal });
        editor.open = false;
        formFor = null;
        await refresh();
      }));
    }
    await refreshHistory();
  };

  const refreshHistory = async () => {
    try {
      const page = await api.get(`${path}/runs?limit=20`, { signal: scope.signal });
      showHistory(page.runs, () => page.runs.length === 0
        ? notice('empty', 'This job has not run yet. "Run now" fires it within a second.')
        : table('Run history, newest first', ['Run', 'Trigger', 'Status', 'Scheduled for', 'Started', 'Output'],
          page.runs.map((r) => [
            h('a', { href: router.href(`/runs/${r.run_id}`) }, code(r.run_id)),
            r.trigger ?? '—',
            badge(r.status),
            time(r.scheduled_for),
            time(r.created_at),
            r.error ? h('div', { class: 'error-text' }, snippet(r.error, 200))
              : r.output ? [longText(r.output, 200), r.usage ? h('p', { class: 'muted' }, usage(r.usage)) : null] : '—',
          ])));
    } catch (error) {
      if (error.name === 'AbortError') throw error;
      showHistory.reset();
      replace(history, notice('error', `Could not load the history: ${error.message}`));
    }
  };

  scope.poll(3000, refresh);
}

// ---- the form ----------------------------------------------------------------------------------

/** The text of a stored schedule, as the grammar reads it back. */
function scheduleText(schedule) {
  if (!schedule) return '';
  if (schedule.kind === 'cron') return schedule.expr ?? '';
  if (schedule.kind === 'once') return schedule.run_at ?? '';
  return schedule.display ?? '';
}

let zones = null;
function zoneList() {
  if (!zones) {
    zones = h('datalist', { id: 'time-zones' },
      (Intl.supportedValuesOf?.('timeZone') ?? []).map((zone) => h('option', { value: zone })));
    document.body.append(zones);
  }
  return zones.id;
}

/**
 * Create (job null) or edit: name, schedule (previewed by the server as you type), time zone,
 * prompt, repeat. onSave(body) sends it; a refusal is shown under the form.
 */
function jobForm(scope, job, onSave) {
  const name = h('input', { type: 'text', name: 'name', required: true, maxlength: '200', value: job?.name ?? '' });
  const schedule = h('input', { type: 'text', name: 'schedule', required: true, autocomplete: 'off',
    value: scheduleText(job?.schedule), placeholder: 'every 30m · 0 9 * * * · 2h · 2026-12-24T09:00' });
  const tz = h('input', { type: 'text', name: 'tz', autocomplete: 'off', list: zoneList(),
    value: job?.schedule?.tz ?? '', placeholder: Intl.DateTimeFormat().resolvedOptions().timeZone });
  const prompt = h('textarea', { name: 'prompt', rows: '4', maxlength: '5000', value: job?.prompt ?? '' });
  const repeat = h('input', { type: 'number', name: 'repeat', min: '1', step: '1', inputmode: 'numeric',
    value: job?.repeat?.times ?? '' });
  const preview = h('div', { class: 'preview', 'aria-live': 'polite' });
  const status = h('div', { 'aria-live': 'polite' });

  let previewRequest = null;
  const showPreview = debounce(async () => {
    previewRequest?.abort();
    const text = schedule.value.trim();
    if (!text) {
      replace(preview, notice('info', 'Enter a schedule: every 2h, 30m, a cron expression like 0 9 * * *, or an ISO time.'));
      return;
    }
    previewRequest = new AbortController();
    const signal = AbortSignal.any([scope.signal, previewRequest.signal]);
    const body = { schedule: text, count: 5 };
    if (tz.value.trim()) body.tz = tz.value.trim();
    try {
      const answer = await api.post('/api/jobs/preview', body, { signal });
      replace(preview, h('p', { class: 'ok' }, 'Valid: ', h('strong', {}, answer.schedule?.display ?? text), '. Next runs:'),
        answer.next_runs.length === 0 ? notice('empty', 'It would never fire.')
          : h('ol', { class: 'times' }, answer.next_runs.map((at) => h('li', {}, time(at)))));
    } catch (error) {
      if (error.name === 'AbortError') return;
      replace(preview, notice('error', error.message));
    }
  }, 300);
  schedule.addEventListener('input', showPreview);
  tz.addEventListener('input', showPreview);
  scope.onDispose(() => {
    showPreview.cancel();
    previewRequest?.abort();
  });
  showPreview();

  const submit = h('button', { type: 'submit', class: 'primary' }, job ? 'Save changes' : 'Create job');
  const form = h('form', { class: 'stack job-form' },
    field('Name', name),
    field('Schedule', schedule, 'every 30m (repeats) · 0 9 * * * (cron) · 30m (once, from now) · 2026-12-24T09:00 (once)'),
    preview,
    field('Time zone (optional)', tz, 'For cron schedules and times without an offset; empty means the server\'s zone.'),
    field('Prompt', prompt, 'What the agent is asked at every firing.'),
    field('Repeat (optional)', repeat, 'Stop after this many firings; empty repeats forever.'),
    submit, status);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    let body = { name: name.value.trim(), schedule: schedule.value.trim(), prompt: prompt.value };
    if (tz.value.trim()) body.tz = tz.value.trim();
    if (repeat.value.trim()) body.repeat = Number(repeat.value);
    if (job) {
      // an edit sends what changed only: an unchanged schedule must not move next_run_at
      const before = { name: job.name, schedule: scheduleText(job.schedule), prompt: job.prompt ?? '',
        tz: job.schedule?.tz ?? undefined, repeat: job.repeat?.times ?? undefined };
      body = Object.fromEntries(Object.entries(body).filter(([key, value]) => value !== before[key]));
      if (Object.keys(body).length === 0) {
        replace(status, notice('info', 'Nothing changed.'));
        return;
      }
    }
    submit.disabled = true;
    replace(status);
    try {
      await onSave(body);
    } catch (error) {
      if (error.name !== 'AbortError') replace(status, notice('error', `Not saved: ${error.message}`));
    } finally {
      submit.disabled = false;
    }
  });
  return form;
}
