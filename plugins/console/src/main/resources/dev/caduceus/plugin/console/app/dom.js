// Building DOM nodes from elements and text nodes only, never from HTML strings: nothing the
// server returns can become markup, and no style attribute is ever written (the CSP forbids it).

/**
 * h('a', {href: '#/runs', class: 'x', onclick: fn}, 'text', child, [more]) → an element.
 * Props: class, text, value (set as the property), on<event> (a listener), booleans as present
 * or absent attributes, anything else as an attribute. Children: nodes, strings, arrays; null and
 * false are skipped.
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'class') el.className = value;
    else if (name === 'text') el.textContent = value;
    else if (name === 'value') el.value = value;
    else if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

/** Appends children (nodes, strings, nested arrays; null/false skipped). */
export function append(el, ...children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/** Replaces everything inside el with children. */
export function replace(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

/** A labelled form field: <div class="field"><label for=id>label</label>control hint</div>. */
let fieldIds = 0;
export function field(label, control, hint) {
  const id = control.id || `f${++fieldIds}`;
  control.id = id;
  const parts = [h('label', { for: id }, label), control];
  if (hint) {
    const hintId = `${id}-hint`;
    control.setAttribute('aria-describedby', hintId);
    parts.push(h('p', { class: 'hint', id: hintId }, hint));
  }
  return h('div', { class: 'field' }, parts);
}

/** A notice box: kind is 'error', 'empty' or 'info'. */
export function notice(kind, ...children) {
  return h('p', { class: `notice ${kind}`, role: kind === 'error' ? 'alert' : null }, children);
}

/** A table with a header row; rows are arrays of cells (nodes or text). */
export function table(caption, headers, rows) {
  return h('div', { class: 'table-wrap' },
    h('table', {},
      caption ? h('caption', { class: 'visually-hidden' }, caption) : null,
      h('thead', {}, h('tr', {}, headers.map((name) => h('th', { scope: 'col' }, name)))),
      h('tbody', {}, rows.map((cells) => h('tr', {}, cells.map((cell) => h('td', {}, cell)))))));
}

/** A button that shows "working" while its async action runs, and reports a failure next to itself. */
export function action(label, run, props = {}) {
  const button = h('button', { type: 'button', ...props }, label);
  button.addEventListener('click', async () => {
    if (button.disabled) return;
    button.disabled = true;
    button.setAttribute('aria-busy', 'true');
    try {
      await run(button);
    } finally {
      button.disabled = false;
      button.removeAttribute('aria-busy');
    }
  });
  return button;
}

/**
 * A renderer for a polled area: show(data, build) rebuilds el from build() only when data differs
 * from the last shown, so a poll keeps the keyboard focus and a selection where they are.
 * reset() forgets the last data (after an error was shown there instead).
 */
export function whenChanged(el) {
  let last = null;
  const show = (data, build) => {
    const key = JSON.stringify(data);
    if (key === last) return;
    last = key;
    replace(el, build());
  };
  show.reset = () => {
    last = null;
  };
  return show;
}
