// Chat playground: /v1/chat/completions streamed, with the agent's tool progress shown as it
// happens (hermes.tool.progress, asked for with X-Hermes-Tool-Progress: true).
import * as api from './api.js';
import { field, h, notice, replace } from './dom.js';
import { longText, usage } from './format.js';

const PROGRESS = 'hermes.tool.progress';

export function mount(main, scope) {
  const messages = [];
  const transcript = h('ol', { class: 'transcript chat', 'aria-label': 'Conversation so far', 'aria-live': 'polite' });
  const input = h('textarea', { name: 'message', rows: '3', required: true });
  const send = h('button', { type: 'submit', class: 'primary' }, 'Send');
  const stop = h('button', { type: 'button', hidden: true }, 'Stop');
  const clear = h('button', { type: 'button', class: 'quiet' }, 'New chat');
  const status = h('div', { 'aria-live': 'polite' });
  const form = h('form', { class: 'stack composer' },
    field('Message', input, 'Enter sends, Shift+Enter starts a new line. The agent may run tools on the server.'),
    h('div', { class: 'buttons' }, send, stop, clear), status);
  let running = null;

  replace(main, h('h1', {}, 'Chat playground'),
    h('p', {}, 'Talks to the agent through POST /v1/chat/completions with streaming, as any OpenAI client would.'),
    transcript, form);
  const empty = h('li', { class: 'muted' }, 'No messages yet. Ask something, e.g. "List the files in the workspace".');
  transcript.append(empty);

  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  stop.addEventListener('click', () => running?.abort());
  clear.addEventListener('click', () => {
    running?.abort();
    messages.length = 0;
    replace(transcript, empty);
    replace(status);
    input.focus();
  });
  scope.onDispose(() => running?.abort());

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text || running) return;
    empty.remove();
    input.value = '';
    messages.push({ role: 'user', content: text });
    transcript.append(h('li', { class: 'bubble user' }, h('span', { class: 'who' }, 'you'), longText(text, 1500)));
    const answer = h('div', { class: 'answer' });
    const tools = h('ul', { class: 'progress', 'aria-label': 'Tool progress' });
    const meta = h('p', { class: 'muted' });
    const bubble = h('li', { class: 'bubble assistant' }, h('span', { class: 'who' }, 'agent'), tools, answer, meta);
    transcript.append(bubble);
    running = new AbortController();
    send.disabled = true;
    stop.hidden = false;
    replace(status);
    let content = '';
    const steps = new Map();
    const progress = (p) => {
      let row = steps.get(p.toolCallId);
      if (!row) {
        row = h('li', { class: 'step running' });
        steps.set(p.toolCallId, row);
        tools.append(row);
        row.dataset.label = `${p.emoji ?? '🔧'} ${p.label ?? p.tool}`;
      }
      row.className = `step ${p.status}`;
      replace(row, row.dataset.label, ' — ', p.status === 'completed' ? 'done' : p.status);
    };
    try {
      const signal = AbortSignal.any([scope.signal, running.signal]);
      const body = { stream: true, stream_options: { include_usage: true }, messages };
      for await (const frame of api.events('/v1/chat/completions', {
        method: 'POST', body, signal, headers: { 'X-Hermes-Tool-Progress': 'true' },
      })) {
        if (frame.comment !== undefined) {
          if (frame.comment.startsWith(`${PROGRESS} `)) progress(JSON.parse(frame.comment.slice(PROGRESS.length + 1)));
          continue;
        }
        if (frame.event === PROGRESS) {
          progress(JSON.parse(frame.data));
          continue;
        }
        if (frame.data === '[DONE]') break;
        const chunk = JSON.parse(frame.data);
        const delta = chunk.choices?.[0]?.delta ?? {};
        if (delta.content) {
          content += delta.content;
          answer.textContent = content;
        }
        if (chunk.choices?.[0]?.finish_reason && chunk.choices[0].finish_reason !== 'stop') {
          meta.textContent = `Finished: ${chunk.choices[0].finish_reason}. `;
        }
        if (chunk.error) replace(status, notice('error', `The agent failed: ${chunk.error.message}`));
        if (chunk.usage) meta.textContent = `${meta.textContent.replace(/Usage:.*$/, '')}Usage: ${usage(chunk.usage)}`;
      }
      if (!content) answer.textContent = '(no text)';
      messages.push({ role: 'assistant', content });
    } catch (error) {
      if (error.name === 'AbortError') {
        if (scope.alive) {
          replace(status, notice('info', 'Stopped. The agent was interrupted.'));
          if (content) messages.push({ role: 'assistant', content });
        }
      } else {
        replace(status, notice('error', error.message));
        messages.pop();
      }
    } finally {
      running = null;
      send.disabled = false;
      stop.hidden = true;
      if (scope.alive) input.focus();
    }
  });
  input.focus();
}
