// How values look: times in the browser's zone (UTC on hover), statuses, durations, long text.
import { h } from './dom.js';

const local = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const utc = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'medium', timeZone: 'UTC' });
const numbers = new Intl.NumberFormat();

/** A Date from unix seconds (runs, responses: numbers) or an ISO-8601 string (jobs). */
export function toDate(value) {
  if (value === null || value === undefined || value === '') return null;
  const date = typeof value === 'number' ? new Date(value * 1000) : new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** <time> in the browser's zone, with the UTC time as its title; "—" when there is none. */
export function time(value) {
  const date = toDate(value);
  if (!date) return h('span', { class: 'muted' }, '—');
  return h('time', { datetime: date.toISOString(), title: `${utc.format(date)} UTC` }, local.format(date));
}

/** "1.2 s", "3 min 4 s", "2 h 5 min". */
export function duration(seconds) {
  if (seconds === null || seconds === undefined || Number.isNaN(Number(seconds))) return '—';
  const s = Number(seconds);
  if (s < 60) return `${s < 10 ? s.toFixed(1) : Math.round(s)} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
  return `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min`;
}

export function count(n) {
  return n === null || n === undefined ? '—' : numbers.format(n);
}

/** A status as a badge: "waiting_for_approval" reads "waiting for approval". */
export function badge(status) {
  const word = String(status ?? 'unknown');
  return h('span', { class: `badge status-${word.replace(/[^a-z_]/g, '')}` }, word.replaceAll('_', ' '));
}

/** Statuses of a run that can still change. */
export const LIVE = ['queued', 'running', 'waiting_for_approval', 'requires_action', 'stopping'];

export function isLive(status) {
  return LIVE.includes(status);
}

/**
 * Text in a <pre>, cut at limit characters with a "Show more" button that reveals the rest (and
 * "Show less" to fold it again).
 */
export function longText(text, limit = 400) {
  const value = String(text ?? '');
  const pre = h('pre', { class: 'text' }, value.length > limit ? `${value.slice(0, limit)}…` : value);
  if (value.length <= limit) return pre;
  const more = `Show more (${count(value.length - limit)} more characters)`;
  const button = h('button', { type: 'button', class: 'link', 'aria-expanded': 'false' }, more);
  button.addEventListener('click', () => {
    const open = button.getAttribute('aria-expanded') !== 'true';
    pre.textContent = open ? value : `${value.slice(0, limit)}…`;
    button.textContent = open ? 'Show less' : more;
    button.setAttribute('aria-expanded', String(open));
  });
  return h('div', { class: 'long' }, pre, button);
}

/** A short one-line version of text (table cells). */
export function snippet(text, limit = 80) {
  const value = String(text ?? '').replace(/\s+/g, ' ').trim();
  if (!value) return h('span', { class: 'muted' }, '—');
  return value.length > limit ? h('span', { title: value.slice(0, 1000) }, `${value.slice(0, limit)}…`) : value;
}

/** A monospace id. */
export function code(text) {
  return h('code', {}, String(text ?? ''));
}

/** Token usage {input_tokens, output_tokens, total_tokens} or chat's {prompt_tokens, ...}. */
export function usage(u) {
  if (!u) return '—';
  const input = u.input_tokens ?? u.prompt_tokens;
  const output = u.output_tokens ?? u.completion_tokens;
  return `${count(input)} in · ${count(output)} out · ${count(u.total_tokens)} total tokens`;
}
