// A page's lifetime: everything it starts (polls, streams, timers) ends when the user leaves it.

/** One mounted page. dispose() aborts its requests and stops its polls. */
export class Scope {
  #controller = new AbortController();
  #cleanups = [];

  /** Aborted when the page goes away: pass it to every request the page makes. */
  get signal() {
    return this.#controller.signal;
  }

  get alive() {
    return !this.#controller.signal.aborted;
  }

  onDispose(fn) {
    this.#cleanups.push(fn);
  }

  /**
   * Runs fn now and then ms after each run ends (never two at once). A failing run is the page's
   * business (it shows its own error state); the poll just goes on.
   */
  poll(ms, fn) {
    let timer = null;
    const tick = async () => {
      if (!this.alive) return;
      try {
        await fn();
      } catch {
        // the page rendered the error; try again at the next tick
      }
      if (this.alive) timer = setTimeout(tick, ms);
    };
    this.onDispose(() => clearTimeout(timer));
    tick();
  }

  /** A promise that resolves after ms, or rejects (AbortError) if the page goes away first. */
  sleep(ms) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, ms);
      this.#controller.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(new DOMException('page left', 'AbortError'));
      }, { once: true });
    });
  }

  dispose() {
    this.#controller.abort();
    for (const fn of this.#cleanups.splice(0)) {
      try {
        fn();
      } catch {
        // a cleanup must not keep the others from running
      }
    }
  }
}

/** fn, called at most once per ms after the calls stop (the last call's arguments win). */
export function debounce(fn, ms) {
  let timer = null;
  const debounced = (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
  debounced.cancel = () => clearTimeout(timer);
  return debounced;
}

/** Whether an error is the abort of a request the page no longer wants. */
export function aborted(error) {
  return error?.name === 'AbortError';
}
