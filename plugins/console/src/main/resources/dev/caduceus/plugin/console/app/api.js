// The public API, called with the key the user pasted. The key lives in sessionStorage only
// (gone when the tab closes), goes out only in the Authorization header, and is never logged.

const KEY = 'caduceus.console.key';
const unauthorizedListeners = new Set();

export function signedIn() {
  return Boolean(sessionStorage.getItem(KEY));
}

export function signIn(key) {
  sessionStorage.setItem(KEY, key);
}

/** Forgets the key and everything else this tab kept (event cursors of runs). */
export function signOut() {
  sessionStorage.clear();
}

/** fn() runs when the server answers 401 to the stored key (it was rotated or removed). */
export function onUnauthorized(fn) {
  unauthorizedListeners.add(fn);
  return () => unauthorizedListeners.delete(fn);
}

/** An answer that is not 2xx, with the contract's message when the body carried one. */
export class ApiError extends Error {
  constructor(status, message, code = null) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
  }
}

/**
 * The error of a failed answer. Both shapes the API uses are read: the envelope
 * {"error": {"message", "code", ...}} and the jobs API's flat {"error": "Job not found"}.
 */
export async function errorOf(response) {
  let message = `The server answered ${response.status}${response.statusText ? ` ${response.statusText}` : ''}.`;
  let code = null;
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text);
    if (typeof body?.error === 'string') message = body.error;
    else if (body?.error?.message) {
      message = body.error.message;
      code = body.error.code ?? null;
    }
  } catch {
    // not JSON: keep the status line
  }
  return new ApiError(response.status, message, code);
}

/**
 * One request. options: body (sent as JSON), headers, signal, key (try this key instead of the
 * stored one: the sign-in check). Resolves to the Response when it is 2xx, else throws ApiError.
 */
export async function send(method, path, options = {}) {
  const headers = new Headers(options.headers ?? {});
  const key = options.key ?? sessionStorage.getItem(KEY);
  if (key) headers.set('Authorization', `Bearer ${key}`);
  const init = { method, headers, signal: options.signal, cache: 'no-store', credentials: 'omit', redirect: 'error' };
  if (options.body !== undefined) {
    headers.set('Content-Type', 'application/json');
    init.body = JSON.stringify(options.body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    if (error?.name === 'AbortError') throw error;
    throw new ApiError(0, 'Cannot reach the server. Check that it is running, then try again.', 'network');
  }
  if (response.ok) return response;
  const error = await errorOf(response);
  if (response.status === 401 && options.key === undefined) {
    for (const fn of unauthorizedListeners) fn(error);
  }
  throw error;
}

async function json(method, path, options) {
  const response = await send(method, path, options);
  if (response.status === 204) return null;
  const text = await response.text();
  return text ? JSON.parse(text) : null;
}

export const get = (path, options) => json('GET', path, options);
export const post = (path, body, options) => json('POST', path, { ...options, body: body ?? {} });
export const patch = (path, body, options) => json('PATCH', path, { ...options, body });
export const del = (path, options) => json('DELETE', path, options);

/** GET as text (the Prometheus exposition of /metrics). */
export async function text(path, options) {
  return (await send('GET', path, options)).text();
}

/** Builds "/path?a=1&b=2" from the defined, non-empty entries of params. */
export function query(path, params) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  }
  const rendered = search.toString();
  return rendered ? `${path}?${rendered}` : path;
}

/**
 * Server-sent events over fetch (EventSource cannot send the Authorization header): yields
 * {id, event, data} for each frame and {comment} for each comment line, until the server closes
 * the stream or options.signal aborts. Throws ApiError when the answer is not 2xx.
 */
export async function* events(path, options = {}) {
  const headers = { Accept: 'text/event-stream', ...(options.headers ?? {}) };
  const response = await send(options.method ?? 'GET', path, { ...options, headers });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let frame = { id: null, event: null, data: [] };
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let newline;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline).replace(/\r$/, '');
        buffer = buffer.slice(newline + 1);
        if (line === '') {
          if (frame.data.length > 0) yield { id: frame.id, event: frame.event, data: frame.data.join('\n') };
          frame = { id: null, event: null, data: [] };
        } else if (line.startsWith(':')) {
          yield { comment: line.slice(1).trimStart() };
        } else {
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'data') frame.data.push(value);
          else if (field === 'id') frame.id = value;
          else if (field === 'event') frame.event = value;
        }
      }
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}
