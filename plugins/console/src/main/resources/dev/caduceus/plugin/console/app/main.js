// The shell: sign-in gate, navigation, and mounting one page at a time into <main>.
import * as api from './api.js';
import { h, notice, replace } from './dom.js';
import { Scope } from './live.js';
import * as router from './router.js';

const ROUTES = [
  { pattern: /^\/overview$/, section: 'overview', title: 'Overview', load: () => import('./overview.js') },
  { pattern: /^\/runs$/, section: 'runs', title: 'Runs', load: () => import('./runs.js') },
  { pattern: /^\/runs\/([^/]+)$/, names: ['id'], section: 'runs', title: 'Run', load: () => import('./run.js') },
  { pattern: /^\/jobs$/, section: 'jobs', title: 'Jobs', load: () => import('./jobs.js') },
  { pattern: /^\/jobs\/([^/]+)$/, names: ['id'], section: 'jobs', title: 'Job', load: () => import('./jobs.js') },
  { pattern: /^\/conversations$/, section: 'conversations', title: 'Conversations', load: () => import('./conversations.js') },
  { pattern: /^\/conversations\/([^/]+)$/, names: ['id'], section: 'conversations', title: 'Conversation',
    load: () => import('./conversations.js') },
  { pattern: /^\/webhooks$/, section: 'webhooks', title: 'Webhooks', load: () => import('./webhooks.js') },
  { pattern: /^\/chat$/, section: 'chat', title: 'Chat playground', load: () => import('./chat.js') },
];

const main = document.getElementById('page');
const nav = document.getElementById('nav');
const signOutButton = document.getElementById('sign-out');
let scope = null;
let rendering = 0;

function setSignedInChrome(on) {
  nav.hidden = !on;
  signOutButton.hidden = !on;
}

function markSection(section) {
  for (const link of nav.querySelectorAll('a')) {
    if (link.dataset.section === section) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

async function showSignIn(message) {
  scope?.dispose();
  scope = new Scope();
  setSignedInChrome(false);
  document.title = 'Sign in · Caduceus console';
  const { mount } = await import('./signin.js');
  mount(main, scope, { message, onSignedIn: render });
}

async function render() {
  const ticket = ++rendering;
  if (!api.signedIn()) {
    await showSignIn();
    return;
  }
  setSignedInChrome(true);
  const { path, query } = router.current();
  const found = router.match(ROUTES, path);
  scope?.dispose();
  scope = new Scope();
  const pageScope = scope;
  if (!found) {
    markSection(null);
    document.title = 'Not found · Caduceus console';
    replace(main, h('h1', {}, 'Page not found'),
      notice('empty', 'There is no console page at ', h('code', {}, path), '. ',
        h('a', { href: '#/overview' }, 'Go to the overview'), '.'));
    return;
  }
  markSection(found.route.section);
  document.title = `${found.route.title} · Caduceus console`;
  try {
    const page = await found.route.load();
    if (ticket !== rendering || !pageScope.alive) return;
    replace(main);
    page.mount(main, pageScope, { ...found.params, query });
  } catch (error) {
    replace(main, h('h1', {}, found.route.title),
      notice('error', `This page failed to load: ${error.message}. Reload to try again.`));
  }
}

api.onUnauthorized(() => {
  api.signOut();
  showSignIn('The server no longer accepts this key (401). Paste a valid key to go on.');
});

signOutButton.addEventListener('click', () => {
  api.signOut();
  showSignIn('Signed out. The key is forgotten in this tab.');
});

document.getElementById('skip').addEventListener('click', (event) => {
  event.preventDefault();
  main.focus();
});

// Moving between pages puts the keyboard focus at the top of the new page.
window.addEventListener('hashchange', () => {
  if (location.hash.startsWith('#/')) main.focus({ preventScroll: true });
});

router.start(render);
