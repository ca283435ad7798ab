// Hash routing (#/runs/run_…): the server serves only /console/ and its files, and a reload or a
// shared link lands on the same page.

/** The current route: path ("/runs/run_1") and query (URLSearchParams) of the fragment. */
export function current() {
  const hash = location.hash.startsWith('#/') ? location.hash.slice(1) : '/overview';
  const at = hash.indexOf('?');
  return {
    path: at < 0 ? hash : hash.slice(0, at),
    query: new URLSearchParams(at < 0 ? '' : hash.slice(at + 1)),
  };
}

/** The href of a console page. */
export function href(path, params) {
  const search = params ? new URLSearchParams(Object.entries(params).filter(([, v]) => v)).toString() : '';
  return `#${path}${search ? `?${search}` : ''}`;
}

export function navigate(path, params) {
  location.hash = href(path, params);
}

/** Rewrites the fragment's query without a navigation (filters that should survive a reload). */
export function remember(path, params) {
  history.replaceState(null, '', href(path, params));
}

/**
 * Matches path against routes [{pattern: /^\/runs\/([^/]+)$/, names: ['id'], ...}] and returns
 * {route, params} or null.
 */
export function match(routes, path) {
  for (const route of routes) {
    const found = route.pattern.exec(path);
    if (!found) continue;
    const params = {};
    (route.names ?? []).forEach((name, i) => {
      params[name] = decodeURIComponent(found[i + 1]);
    });
    return { route, params };
  }
  return null;
}

/** Calls onRoute() now and at every navigation between console pages. */
export function start(onRoute) {
  window.addEventListener('hashchange', () => {
    if (location.hash === '' || location.hash.startsWith('#/')) onRoute();
  });
  onRoute();
}
