// Conversations: named conversations, conversation objects (the Conversations API) and stored responses
// (the Responses API's state; a queued or running one has a Cancel button), and a
// chain shown as a chat transcript, tool calls included.
import * as api from './api.js';
import { action, h, notice, replace, table, whenChanged } from './dom.js';
import { badge, code, count, longText, snippet, time, usage } from './format.js';
import * as router from './router.js';

const PAGE = 20;
const MAX_ITEMS = 2000;

export function mount(main, scope, params) {
  if (params.id) mountChain(main, scope, params.id, params.query?.get('name') ?? null);
  else mountLists(main, scope);
}

function confirmDelete(what) {
  return window.confirm(`Delete ${what}? This cannot be undone.`);
}

// ---- the lists -----------------------------------------------------------------------------

function mountLists(main, scope) {
  const named = h('div', { 'aria-live': 'polite' }, notice('info', 'Loading…'));
  const stored = h('div', { 'aria-live': 'polite' }, notice('info', 'Loading…'));
  const more = h('button', { type: 'button', hidden: true }, 'Show more');
  const problem = h('div', { 'aria-live': 'assertive' });
  const showNamed = whenChanged(named);
  const showStored = whenChanged(stored);
  let limit = PAGE;

  const objects = h('div', { 'aria-live': 'polite' }, notice('info', 'Loading…'));
  const showObjects = whenChanged(objects);
  replace(main, h('h1', {}, 'Conversations'), problem,
    h('section', { 'aria-labelledby': 'named-h' }, h('h2', { id: 'named-h' }, 'Named conversations'), named),
    h('section', { 'aria-labelledby': 'objects-h' }, h('h2', { id: 'objects-h' }, 'Conversation objects'), objects),
    h('section', { 'aria-labelledby': 'stored-h' }, h('h2', { id: 'stored-h' }, 'Stored responses'), stored, more));

  const refresh = async () => {
    await Promise.all([refreshNamed(), refreshStored()]);
  };
  // A Delete button: asks, deletes, refreshes the lists; a failure is shown above them.
  const remove = (what, path, label) => action('Delete', async () => {
    if (!confirmDelete(what)) return;
    try {
      await api.del(path, { signal: scope.signal });
      await refresh();
    } catch (error) {
      if (error.name !== 'AbortError') replace(problem, notice('error', error.message));
    }
  }, { class: 'danger', 'aria-label': label });
  const refreshNamed = async () => {
    try {
      const { conversations, conversation_objects: convObjects = [] } = await api.get('/api/conversations?limit=50',
        { signal: scope.signal });
      showObjects(convObjects, () => convObjects.length === 0
        ? notice('empty', 'No conversation objects. POST /v1/conversations (the Conversations API) creates one.')
        : table('Conversation objects, newest first', ['Conversation', 'Created', 'Items', 'Metadata', 'Actions'],
          convObjects.map((c) => [
            code(c.id), time(c.created_at), count(c.items), snippet(JSON.stringify(c.metadata ?? {}), 60),
            remove(`the conversation ${c.id} and its ${c.items} items`, `/v1/conversations/${encodeURIComponent(c.id)}`,
              `Delete conversation ${c.id}`),
          ])));
      showNamed(conversations, () => conversations.length === 0
        ? notice('empty', 'No named conversations. A POST /v1/responses with "conversation": "name" starts one.')
        : table('Named conversations, most recent first', ['Name', 'Turns', 'Updated', 'Actions'], conversations.map((c) => [
          h('a', { href: router.href(`/conversations/${encodeURIComponent(c.response_id)}`, { name: c.name }) }, c.name),
          count(c.turns), time(c.updated_at),
          remove(`the conversation "${c.name}" and its ${c.turns} stored responses`,
            `/api/conversations/${encodeURIComponent(c.name)}`, `Delete conversation ${c.name}`),
        ])));
    } catch (error) {
      if (error.name === 'AbortError') throw error;
      showNamed.reset();
      replace(named, notice('error', `Could not list conversations: ${error.message}`));
    }
  };
  const refreshStored = async () => {
    try {
      const page = await api.get(api.query('/v1/responses', { limit }), { signal: scope.signal });
      showStored(page.data, () => page.data.length === 0
        ? notice('empty', 'No stored responses. Responses made with POST /v1/responses (store: true, the default) appear here.')
        : table('Stored responses, newest first', ['Response', 'Created', 'Status', 'Conversation', 'Input', 'Output', 'Actions'],
          page.data.map((r) => [
            h('a', { href: router.href(`/conversations/${encodeURIComponent(r.id)}`, { name: r.conversation }) }, code(r.id)),
            time(r.created_at), badge(r.status), r.conversation ?? '—',
            snippet(r.input_preview, 60), snippet(r.output_preview, 60),
            h('span', {}, r.status === 'queued' || r.status === 'in_progress' ? action('Cancel', async () => {
              try { // only a background response can be cancelled: the server says so for the others
                await api.post(`/v1/responses/${encodeURIComponent(r.id)}/cancel`, {}, { signal: scope.signal });
                await refresh();
              } catch (error) {
                if (error.name !== 'AbortError') replace(problem, notice('error', error.message));
              }
            }, { 'aria-label': `Cancel response ${r.id}` }) : null, remove(`the response ${r.id}`, `/v1/responses/${encodeURIComponent(r.id)}`,
              `Delete response ${r.id}`)),
          ])));
      more.hidden = !page.has_more || limit >= 100;
    } catch (error) {
      if (error.name === 'AbortError') throw error;
      showStored.reset();
      replace(stored, notice('error', `Could not list responses: ${error.message}`));
    }
  };
  more.addEventListener('click', () => {
    limit = Math.min(100, limit + PAGE);
    refreshStored().catch(() => {});
  });
  scope.poll(5000, refresh);
}

// ---- one chain -----------------------------------------------------------------------------

/** Every input item of a response, oldest first (the chain's history and this turn's input). */
async function inputItems(id, signal) {
  const items = [];
  let after = null;
  for (;;) {
    const page = await api.get(api.query(`/v1/responses/${encodeURIComponent(id)}/input_items`,
      { order: 'asc', limit: 100, after }), { signal });
    items.push(...page.data);
    if (!page.has_more || page.data.length === 0 || items.length >= MAX_ITEMS) return items;
    after = page.last_id ?? page.data[page.data.length - 1].id;
  }
}

function partsText(content) {
  if (typeof content === 'string') return content;
  return (content ?? []).map((p) => (p.type === 'input_image' ? '[image]' : p.text ?? '')).join('\n');
}

function renderItem(item) {
  switch (item.type) {
    case 'message':
      return h('li', { class: `bubble ${item.role === 'user' ? 'user' : item.role === 'assistant' ? 'assistant' : 'system'}` },
        h('span', { class: 'who' }, item.role), longText(partsText(item.content), 1500));
    case 'function_call':
      return h('li', { class: 'bubble tool' }, h('span', { class: 'who' }, 'tool call ', code(item.name)),
        longText(item.arguments, 300));
    case 'mcp_call': // a step the server ran: the call and its output in one item
      return h('li', { class: 'bubble tool' }, h('span', { class: 'who' }, 'tool call ', code(item.name)),
        longText(item.arguments, 300), longText(item.error ?? item.output ?? '', 300));
    case 'function_call_output':
      return h('li', { class: 'bubble tool' }, h('span', { class: 'who' }, 'tool output'),
        longText(typeof item.output === 'string' ? item.output : partsText(item.output), 300));
    case 'reasoning':
      return h('li', { class: 'bubble system' }, h('span', { class: 'who' }, 'reasoning'),
        longText((item.summary ?? []).map((s) => s.text).join('\n'), 300));
    default:
      return h('li', { class: 'bubble system' }, h('span', { class: 'who' }, item.type ?? 'item'));
  }
}

function mountChain(main, scope, id, name) {
  const header = h('div', { 'aria-live': 'polite' }, notice('info', 'Loading…'));
  const transcript = h('ol', { class: 'transcript', 'aria-label': 'Transcript' });
  const problem = h('div', { 'aria-live': 'assertive' });
  const showHeader = whenChanged(header);
  let shownFor = null;

  replace(main, h('p', {}, h('a', { href: router.href('/conversations') }, '← All conversations')),
    h('h1', {}, 'Conversation at ', code(id)), problem, header, h('h2', {}, 'Transcript'), transcript);

  const refresh = async () => {
    let response;
    try {
      response = await api.get(`/v1/responses/${encodeURIComponent(id)}`, { signal: scope.signal });
    } catch (error) {
      if (error.name === 'AbortError') throw error;
      showHeader.reset();
      replace(header, notice('error', error.status === 404
        ? 'This response is not stored (deleted, evicted, created with store: false, or another key\'s).'
        : `Could not load the response: ${error.message}`));
      return;
    }
    const conversation = name ?? (typeof response.conversation === 'string' ? response.conversation : response.conversation?.id) ?? null;
    showHeader(response, () => [
      h('dl', { class: 'pairs' },
        h('dt', {}, 'Status'), h('dd', {}, badge(response.status)),
        h('dt', {}, 'Created'), h('dd', {}, time(response.created_at)),
        h('dt', {}, 'Model'), h('dd', {}, response.model ?? '—'),
        h('dt', {}, 'Previous response'), h('dd', {}, response.previous_response_id
          ? h('a', { href: router.href(`/conversations/${encodeURIComponent(response.previous_response_id)}`) },
            code(response.previous_response_id)) : '—'),
        h('dt', {}, 'Usage'), h('dd', {}, usage(response.usage))),
      h('div', { class: 'buttons' },
        action('Delete this response', async () => {
          if (!confirmDelete(`the response ${id}`)) return;
          try {
            await api.del(`/v1/responses/${encodeURIComponent(id)}`, { signal: scope.signal });
            router.navigate('/conversations');
          } catch (error) {
            if (error.name !== 'AbortError') replace(problem, notice('error', error.message));
          }
        }, { class: 'danger' }),
        conversation ? action(`Delete the conversation "${conversation}"`, async () => {
          if (!confirmDelete(`the conversation "${conversation}" and its stored responses`)) return;
          try {
            await api.del(`/api/conversations/${encodeURIComponent(conversation)}`, { signal: scope.signal });
            router.navigate('/conversations');
          } catch (error) {
            if (error.name !== 'AbortError') replace(problem, notice('error', error.message));
          }
        }, { class: 'danger' }) : null),
    ]);
    // The transcript of a stored response never changes; a response still in progress is re-read.
    if (shownFor === id && response.status !== 'in_progress') return;
    try {
      const items = await inputItems(id, scope.signal);
      replace(transcript, [...items, ...(response.output ?? [])].map(renderItem));
      if (items.length + (response.output ?? []).length === 0) replace(transcript, h('li', {}, notice('empty', 'This response has no items.')));
      shownFor = id;
    } catch (error) {
      if (error.name === 'AbortError') throw error;
      replace(transcript, h('li', {}, notice('error', `Could not load the transcript: ${error.message}`)));
    }
  };
  scope.poll(5000, refresh);
}
