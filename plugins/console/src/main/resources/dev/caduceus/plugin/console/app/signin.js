// Sign-in: the key is checked with one cheap authenticated call before it is kept (sessionStorage).
import * as api from './api.js';
import { field, h, notice, replace } from './dom.js';

export function mount(main, scope, { message, onSignedIn }) {
  const input = h('input', { type: 'password', name: 'key', autocomplete: 'off', spellcheck: 'false', required: true });
  const status = h('div', { class: 'status', 'aria-live': 'polite' }, message ? notice('info', message) : null);
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Sign in');
  const form = h('form', { class: 'card signin', novalidate: true },
    h('h1', {}, 'Sign in'),
    h('p', {}, 'Paste an API key of this server. It stays in this browser tab only (sessionStorage) and is sent ',
      'as a bearer token on every call; closing the tab or signing out forgets it.'),
    field('API key', input, 'The key printed at the first start, a named key from "caduceus key add", or a new one from "caduceus key rotate".'),
    submit, status);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const key = input.value.trim();
    if (!key) {
      replace(status, notice('error', 'Paste a key first.'));
      input.focus();
      return;
    }
    submit.disabled = true;
    replace(status, notice('info', 'Checking the key…'));
    try {
      await api.get('/health/detailed', { key, signal: scope.signal });
      api.signIn(key);
      input.value = '';
      onSignedIn();
    } catch (error) {
      if (error.name === 'AbortError') return;
      const text = error.status === 401
        ? 'That key was not accepted (401). Check that you pasted the whole key, without spaces.'
        : error.status === 404
          ? 'This key may not use the health check; the console needs a key that may.'
          : error.message;
      replace(status, notice('error', text));
      input.select();
      input.focus();
    } finally {
      submit.disabled = false;
    }
  });
  replace(main, form);
  input.focus();
}
