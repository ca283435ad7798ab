// One run: its status, a live timeline of its events (resumed after a reload from the last event
// seen, kept per run in sessionStorage and sent as Last-Event-ID), approvals, steering and stop.
import * as api from './api.js';
import { action, field, h, notice, replace } from './dom.js';
import { badge, code, duration, isLive, longText, time, usage } from './format.js';
import * as router from './router.js';

const CHOICE_LABELS = { once: 'Approve once', session: 'Approve for this session', always: 'Always approve', deny: 'Deny' };
const TERMINAL = ['run.completed', 'run.failed', 'run.cancelled'];
const SAVE_EVERY_MS = 500;

/** The timeline as plain data (what sessionStorage keeps): items in order and the last event id. */
function load(id) {
  try {
    const saved = JSON.parse(sessionStorage.getItem(`caduceus.console.run.${id}`) ?? 'null');
    if (saved && Number.isInteger(saved.last) && Array.isArray(saved.items)) return saved;
  } catch {
    // a damaged entry: start over from the first event
  }
  return { last: 0, items: [], ended: false };
}

function store(id, state) {
  try {
    sessionStorage.setItem(`caduceus.console.run.${id}`, JSON.stringify(state));
  } catch {
    // storage full: a reload then replays from the first event, which is still correct
    sessionStorage.removeItem(`caduceus.console.run.${id}`);
  }
}

/** Applies one event to the timeline; returns the index of the item it changed or added. */
function apply(state, e) {
  const items = state.items;
  const push = (item) => items.push(item) - 1;
  switch (e.event) {
    case 'message.delta': {
      const last = items[items.length - 1];
      if (last?.kind === 'text') {
        last.text += e.delta ?? '';
        return items.length - 1;
      }
      return push({ kind: 'text', text: e.delta ?? '', at: e.timestamp });
    }
    case 'reasoning.available':
      return push({ kind: 'reasoning', text: e.text ?? '', at: e.timestamp });
    case 'tool.started':
      return push({ kind: 'tool', id: e.tool_call_id, tool: e.tool, preview: e.preview, state: 'running', at: e.timestamp });
    case 'tool.completed': {
      const index = items.findLastIndex((i) => i.kind === 'tool' && i.id === e.tool_call_id && i.state === 'running');
      const item = index >= 0 ? items[index] : items[push({ kind: 'tool', id: e.tool_call_id, tool: e.tool, at: e.timestamp })];
      item.state = e.error ? 'error' : 'done';
      item.duration = e.duration;
      if (e.output_preview !== undefined) item.output = e.output_preview;
      return index >= 0 ? index : items.length - 1;
    }
    case 'approval.request':
      return push({ kind: 'approval', request: e.request_id, command: e.command, description: e.description,
        pattern: e.pattern_key, choices: e.choices ?? [], answer: null, at: e.timestamp });
    case 'approval.responded': {
      let changed = -1;
      let left = Math.max(1, e.resolved ?? 1);
      items.forEach((item, index) => {
        if (left > 0 && item.kind === 'approval' && item.answer === null) {
          item.answer = e.timed_out ? 'deny (timed out)' : e.choice;
          changed = index;
          left -= 1;
        }
      });
      return changed;
    }
    case 'run.steered':
      return push({ kind: 'steer', at: e.timestamp });
    case 'run.resumed':
      // the approvals asked before the server stopped died with it; the resumed run asks again
      items.forEach((item) => { if (item.kind === 'approval' && item.answer === null) item.answer = 'void (server stopped)'; });
      return push({ kind: 'resumed', node: e.node, step: e.step, resumes: e.resumes, at: e.timestamp });
    case 'run.completed':
      return push({ kind: 'final', output: e.output ?? '', usage: e.usage, pending: e.pending_steer, at: e.timestamp });
    case 'run.failed':
      return push({ kind: 'failed', error: e.error ?? 'Run failed', interrupted: Boolean(e.interrupted), at: e.timestamp });
    case 'run.cancelled':
      return push({ kind: 'cancelled', at: e.timestamp });
    default:
      return -1;
  }
}

/** What a pending approval asks, from the timeline (or the status object's "approval"). */
function pendingApproval(state, status) {
  const open = state.items.find((i) => i.kind === 'approval' && i.answer === null);
  if (open) return open;
  const a = status?.approval;
  return a ? { request: a.request_id, command: a.command, description: a.description, pattern: a.pattern_key, choices: a.choices ?? [] } : null;
}

function renderItem(item) {
  const when = item.at ? time(item.at) : null;
  switch (item.kind) {
    case 'text':
      return h('li', { class: 'event text' }, h('span', { class: 'what' }, 'Model'), longText(item.text, 1200));
    case 'reasoning':
      return h('li', { class: 'event reasoning' }, h('span', { class: 'what' }, 'Reasoning'), longText(item.text, 300));
    case 'tool':
      return h('li', { class: `event tool ${item.state}` },
        h('span', { class: 'what' }, 'Tool ', code(item.tool), ' ', badge(item.state === 'done' ? 'completed' : item.state === 'error' ? 'failed' : 'running')),
        item.duration !== undefined ? h('span', { class: 'muted' }, ` ${duration(item.duration)}`) : null,
        when ? h('span', { class: 'muted' }, ' · ', when) : null,
        item.preview ? h('div', {}, h('span', { class: 'label' }, 'Arguments'), longText(item.preview, 300)) : null,
        item.output !== undefined && item.output !== null
          ? h('div', {}, h('span', { class: 'label' }, 'Output'), longText(item.output, 300)) : null);
    case 'approval':
      return h('li', { class: `event approval${item.answer === null ? ' pending' : ''}` },
        h('span', { class: 'what' }, item.answer === null ? 'Approval requested' : `Approval answered: ${item.answer}`),
        when ? h('span', { class: 'muted' }, ' · ', when) : null,
        h('div', {}, item.description ?? '', item.pattern ? ` (${item.pattern})` : ''), longText(item.command, 300));
    case 'steer':
      return h('li', { class: 'event steer' }, h('span', { class: 'what' }, 'Guidance accepted'), when ? [' · ', when] : null);
    case 'resumed':
      return h('li', { class: 'event resumed' }, h('span', { class: 'what' }, 'Resumed'),
        when ? h('span', { class: 'muted' }, ' · ', when) : null,
        h('div', {}, `The server stopped; node `, code(item.node ?? '?'), ` went on after step ${item.step ?? 0}`,
          item.resumes > 1 ? ` (resumed ${item.resumes} times)` : ''));
    case 'final':
      return h('li', { class: 'event final' }, h('span', { class: 'what' }, 'Final answer'), longText(item.output, 2000),
        h('p', { class: 'muted' }, 'Usage: ', usage(item.usage)),
        item.pending ? notice('info', `Guidance arrived after the answer and was not used: ${item.pending}`) : null);
    case 'failed':
      return h('li', { class: 'event failed' }, h('span', { class: 'what' }, item.interrupted ? 'Interrupted' : 'Failed'),
        longText(item.error, 600));
    case 'cancelled':
      return h('li', { class: 'event cancelled' }, h('span', { class: 'what' }, 'Cancelled'), when ? [' · ', when] : null);
    default:
      return h('li', {});
  }
}

export function mount(main, scope, { id }) {
  const state = load(id);
  let status = null;
  let live = !state.ended;

  const statusLine = h('p', { class: 'lead', 'aria-live': 'polite' }, 'Loading…');
  const facts = h('dl', { class: 'pairs' });
  const approvals = h('section', { class: 'card approval-panel', 'aria-labelledby': 'approval-h', hidden: true });
  const controls = h('section', { class: 'controls', 'aria-label': 'Steer or stop' });
  const streamState = h('p', { class: 'muted', 'aria-live': 'polite' });
  const timeline = h('ol', { class: 'timeline', 'aria-label': 'Events' });
  const elements = [];
  const filesList = h('ul', { class: 'artifacts', 'aria-label': 'Delivered files' });
  const filesStatus = h('div', { 'aria-live': 'polite' });
  const filesSection = h('section', { hidden: true }, h('h2', {}, 'Files'), filesList, filesStatus);

  replace(main, h('p', {}, h('a', { href: router.href('/runs') }, '← All runs')),
    h('h1', {}, 'Run ', code(id)), statusLine, facts, approvals, controls,
    h('h2', {}, 'Timeline'), streamState, timeline, filesSection);

  // Timeline rendering: only the items that changed, once per frame.
  const dirty = new Set();
  let frame = 0;
  const paint = () => {
    frame = 0;
    for (const index of [...dirty].sort((a, b) => a - b)) {
      const element = renderItem(state.items[index]);
      if (elements[index]) elements[index].replaceWith(element);
      else timeline.append(element);
      elements[index] = element;
    }
    dirty.clear();
    if (state.items.length === 0) streamState.textContent = live ? 'Waiting for the first event…' : 'This run has no events.';
  };
  const mark = (index) => {
    if (index < 0) return;
    dirty.add(index);
    if (!frame) frame = requestAnimationFrame(paint);
  };
  state.items.forEach((_, index) => mark(index));
  paint();
  scope.onDispose(() => cancelAnimationFrame(frame));

  let saveTimer = null;
  const save = (now = false) => {
    clearTimeout(saveTimer);
    if (now) store(id, state);
    else saveTimer = setTimeout(() => store(id, state), SAVE_EVERY_MS);
  };
  scope.onDispose(() => save(true));
  const saveOnHide = () => save(true);
  window.addEventListener('pagehide', saveOnHide);
  scope.onDispose(() => window.removeEventListener('pagehide', saveOnHide));

  const showStatus = (value) => {
    replace(statusLine, 'Status ', badge(value));
    renderControls(value);
    renderApproval(value);
  };

  // ---- approvals, steer, stop ---------------------------------------------------------------
  const approvalStatus = h('div', { 'aria-live': 'polite' });
  let shownApproval = null;
  function renderApproval(value) {
    if (value === 'requires_action') { // the caller's own tool calls: the caller answers them, an operator may stop
      const calls = status?.required_action?.submit_tool_outputs?.tool_calls ?? [];
      approvals.hidden = false;
      shownApproval = null;
      replace(approvals, h('h2', { id: 'approval-h' }, "Waiting for the caller's tool outputs"),
        h('p', {}, 'The caller runs these functions of its own and answers with POST /v1/runs/{id}/tool_outputs; Stop ends the run.'),
        calls.map((call) => longText(`${call.function?.name ?? '?'}(${call.function?.arguments ?? ''})`, 600)));
      return;
    }
    const pending = value === 'waiting_for_approval' ? pendingApproval(state, status) : null;
    approvals.hidden = !pending;
    const key = pending ? `${pending.request}|${pending.command}` : null;
    if (!pending || key === shownApproval) {
      shownApproval = key;
      return; // unchanged: keep the buttons (and the keyboard focus) where they are
    }
    shownApproval = key;
    const choices = pending.choices.length ? pending.choices : ['once', 'session', 'deny'];
    replace(approvals, h('h2', { id: 'approval-h' }, 'Waiting for approval'),
      h('p', {}, pending.description ?? 'A tool asks for permission.', pending.pattern ? ` (${pending.pattern})` : ''),
      longText(pending.command, 600),
      h('div', { class: 'buttons' }, choices.map((choice) => action(CHOICE_LABELS[choice] ?? choice, async () => {
        replace(approvalStatus);
        try {
          const body = { choice };
          if (pending.request) body.request_id = pending.request;
          await api.post(`/v1/runs/${encodeURIComponent(id)}/approval`, body, { signal: scope.signal });
          replace(approvalStatus, notice('info', `Answered: ${choice}.`));
          await refreshStatus();
        } catch (error) {
          if (error.name !== 'AbortError') replace(approvalStatus, notice('error', error.message));
        }
      }, { class: choice === 'deny' ? 'danger' : 'primary' }))),
      approvalStatus);
  }

  const steerText = h('textarea', { name: 'steer', rows: '2' });
  const steerButton = h('button', { type: 'submit' }, 'Send guidance');
  const controlStatus = h('div', { 'aria-live': 'polite' });
  const steerForm = h('form', { class: 'stack' },
    field('Steer the run', steerText, 'Guidance reaches the agent after its current tool calls.'), steerButton);
  steerForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const input = steerText.value.trim();
    if (!input) {
      replace(controlStatus, notice('error', 'Write the guidance first.'));
      return;
    }
    steerButton.disabled = true;
    try {
      await api.post(`/v1/runs/${encodeURIComponent(id)}/steer`, { input }, { signal: scope.signal });
      steerText.value = '';
      replace(controlStatus, notice('info', 'Guidance accepted.'));
    } catch (error) {
      if (error.name !== 'AbortError') replace(controlStatus, notice('error', `Not accepted: ${error.message}`));
    } finally {
      steerButton.disabled = status?.status !== 'running';
    }
  });
  const stopButton = action('Stop run', async () => {
    try {
      const answer = await api.post(`/v1/runs/${encodeURIComponent(id)}/stop`, {}, { signal: scope.signal });
      replace(controlStatus, notice('info', `Stopping (${answer.status}).`));
      await refreshStatus();
    } catch (error) {
      if (error.name === 'AbortError') return;
      replace(controlStatus, notice(error.status === 404 ? 'info' : 'error',
        error.status === 404 ? 'The run had already finished.' : error.message));
    }
  }, { class: 'danger' });
  replace(controls, steerForm, h('div', { class: 'buttons' }, stopButton));
  controls.after(controlStatus); // the answer to a steer or stop stays readable once the run has ended
  renderControls(null);

  function renderControls(value) {
    const running = value === 'running' || value === 'requires_action'; // steering waits for the outputs too
    steerText.disabled = !running;
    steerButton.disabled = !running;
    stopButton.disabled = !isLive(value);
    controls.hidden = !isLive(value);
  }

  // ---- files the agent delivered (deliver_file), once the run has ended --------------------------
  let filesLoaded = false;
  async function loadFiles() {
    if (filesLoaded) return;
    filesLoaded = true;
    let list;
    try {
      list = await api.get(`/v1/runs/${encodeURIComponent(id)}/artifacts`, { signal: scope.signal });
    } catch (error) {
      if (error.name === 'AbortError') throw error;
      filesLoaded = false; // tried again at the next status poll
      return;
    }
    const files = list?.data ?? [];
    filesSection.hidden = files.length === 0;
    replace(filesList, files.map((file) => h('li', {}, code(file.filename),
      h('span', { class: 'muted' }, ` ${file.bytes} bytes · ${file.content_type} `),
      action(`Download ${file.filename}`, async () => {
        try {
          // the content needs the key: fetched here, then saved from a local URL
          const response = await api.send('GET', file.download, { signal: scope.signal });
          const url = URL.createObjectURL(await response.blob());
          const link = h('a', { href: url, download: file.filename, hidden: true });
          document.body.append(link);
          link.click();
          link.remove();
          setTimeout(() => URL.revokeObjectURL(url), 60_000);
          replace(filesStatus);
        } catch (error) {
          if (error.name !== 'AbortError') replace(filesStatus, notice('error', `Download failed: ${error.message}`));
        }
      }))));
  }

  // ---- status ---------------------------------------------------------------------------------
  async function refreshStatus() {
    try {
      status = await api.get(`/v1/runs/${encodeURIComponent(id)}`, { signal: scope.signal });
    } catch (error) {
      if (error.name === 'AbortError') throw error;
      if (error.status === 404) {
        live = false;
        replace(statusLine, notice('error', `There is no run ${id} (or it belongs to another key, or it is past its retention).`));
        controls.hidden = true;
      } else {
        replace(statusLine, notice('error', `Status unavailable: ${error.message}`));
      }
      return;
    }
    showStatus(status.status);
    const rows = [
      ['Created', time(status.created_at)], ['Updated', time(status.updated_at)],
      ['Session', code(status.session_id)], ['Model', status.model ?? '—'],
      ['Job', status.job_id ? h('a', { href: router.href(`/jobs/${status.job_id}`) }, code(status.job_id)) : '—'],
      ['Events', String(status.last_seq ?? 0)],
    ];
    if (status.resumes) rows.push(['Resumed', [`${status.resumes}×, last ${time(status.resumed_at)} on `, code(status.resumed_node ?? '?')]]);
    if (status.usage) rows.push(['Usage', usage(status.usage)]);
    if (status.error) rows.push(['Error', status.error]);
    replace(facts, rows.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
    if (!isLive(status.status)) {
      live = false;
      await loadFiles();
    }
  }

  scope.poll(3000, async () => {
    if (live || !status) await refreshStatus();
  });

  // ---- events -----------------------------------------------------------------------------------
  async function follow() {
    let attempt = 0;
    while (scope.alive && !state.ended) {
      try {
        const headers = state.last > 0 ? { 'Last-Event-ID': String(state.last) } : {};
        streamState.textContent = state.last > 0 ? `Following live (resumed after event ${state.last}).` : 'Following live.';
        for await (const frame of api.events(`/v1/runs/${encodeURIComponent(id)}/events`, { headers, signal: scope.signal })) {
          if (frame.comment !== undefined || !frame.data) continue;
          const event = JSON.parse(frame.data);
          const seq = Number(frame.id ?? event.seq);
          if (seq <= state.last) continue;
          state.last = seq;
          mark(apply(state, event));
          if (event.event === 'approval.request') showStatus('waiting_for_approval');
          else if (event.event === 'tool_calls.required') refreshStatus();
          else if (event.event === 'approval.responded' && status?.status === 'waiting_for_approval') showStatus('running');
          if (TERMINAL.includes(event.event)) {
            state.ended = true;
            showStatus(event.event === 'run.completed' ? 'completed' : event.event === 'run.cancelled' ? 'cancelled' : 'failed');
          }
          save();
          attempt = 0;
        }
        if (!state.ended) {
          // the server closed the stream without a terminal event: the run ended another way
          await refreshStatus();
          if (!live) state.ended = true;
        }
      } catch (error) {
        if (error.name === 'AbortError') return;
        if (error.status === 404) {
          streamState.textContent = '';
          return;
        }
        streamState.textContent = `Connection lost (${error.message}); reconnecting…`;
      }
      if (state.ended) break;
      attempt += 1;
      await scope.sleep(Math.min(10000, 500 * 2 ** attempt)).catch(() => {});
    }
    save(true);
    streamState.textContent = state.items.length ? 'The run has ended; this is its whole timeline.' : 'This run has no events.';
    await refreshStatus().catch(() => {});
  }
  follow();
}
