// Drives the operator console in headless Chromium (Debian's, never a downloaded one) through
// playwright-core, one scenario per run: `node console.mjs <scenario>`, with BASE_URL, API_KEY,
// SHOTS (the screenshot folder) and the scenario's own variables in the environment. Prints one
// JSON line: {ok, scenario, requests: [{method, url}], errors: [{method, url, status}], ...}.
// Fails (exit 1) on a step that does not happen, a browser console error, a CSP violation or an
// HTTP error the scenario does not expect.
import { chromium } from 'playwright-core';

const scenario = process.argv[2];
const base = process.env.BASE_URL;
const key = process.env.API_KEY;
const shots = process.env.SHOTS;
const env = process.env;
const TIMEOUT = 30_000;

const browser = await chromium.launch({
  executablePath: env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--disable-dev-shm-usage'],
});
const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
context.setDefaultTimeout(TIMEOUT);
await context.addInitScript(() => {
  window.__cspViolations = [];
  document.addEventListener('securitypolicyviolation',
    (e) => window.__cspViolations.push(`${e.violatedDirective} blocked ${e.blockedURI || 'inline'}`));
});
const page = await context.newPage();
const problems = [];
const requests = [];
const errors = [];
const sizes = [];
page.on('console', (m) => {
  // "Failed to load resource: …status of 401" is the browser noting an HTTP error answer: those are
  // checked one by one against what the scenario expects (below), not here.
  if (m.type() === 'error' && !m.text().startsWith('Failed to load resource: the server responded with a status of')) {
    problems.push(`console error: ${m.text()}`);
  }
});
page.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
page.on('request', (r) => requests.push({ method: r.method(), url: r.url(), lastEventId: r.headers()['last-event-id'] ?? null }));
page.on('response', (r) => {
  if (r.status() >= 400) errors.push({ method: r.request().method(), url: r.url(), status: r.status() });
});
page.on('requestfinished', async (r) => {
  try {
    const s = await r.sizes();
    sizes.push({ url: r.url(), bytes: s.responseBodySize + s.responseHeadersSize, at: Date.now() });
  } catch {
    // the page went away
  }
});
page.on('requestfailed', (r) => {
  const why = r.failure()?.errorText ?? '';
  if (why !== 'net::ERR_ABORTED') problems.push(`request failed: ${r.method()} ${r.url()} ${why}`);
});
page.on('dialog', (d) => d.accept());

function check(condition, message) {
  if (!condition) throw new Error(message);
}

/** Waits until condition() holds (checked every 100 ms), failing with message() after TIMEOUT. */
async function until(condition, message) {
  const deadline = Date.now() + TIMEOUT;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(message());
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function shot(name) {
  await page.screenshot({ path: `${shots}/${name}.png`, fullPage: true });
  return `${name}.png`;
}

async function signIn() {
  await page.goto(`${base}/console/`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
}

async function go(hash) {
  await page.evaluate((h) => { location.hash = h; }, hash);
}

/** The run page's status badge reads `status` ("waiting for approval"). */
async function runStatus(status) {
  await page.locator('p.lead .badge', { hasText: new RegExp(`^${status}$`) }).waitFor();
}

/** Bytes of the answers finished since `since` (ms), and their count. */
function weightSince(since) {
  const after = sizes.filter((s) => s.at >= since);
  return { bytes: after.reduce((sum, s) => sum + s.bytes, 0), requests: after.length };
}

const scenarios = {
  /** A wrong key, then the right one; nothing kept outside sessionStorage; sign-out forgets the key. */
  async 'sign-in'() {
    const started = Date.now();
    await page.goto(`${base}/console/`, { waitUntil: 'networkidle' });
    const firstLoad = weightSince(started);
    await page.getByLabel('API key').fill('this-is-not-the-key-of-this-server');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('That key was not accepted (401)').waitFor();
    const refused = await shot('sign-in-refused');
    check(await page.evaluate(() => sessionStorage.length) === 0, 'a refused key was kept');

    const signingIn = Date.now();
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await page.getByRole('cell', { name: 'database', exact: true }).waitFor();
    await page.getByText('Active runs', { exact: true }).waitFor();
    await page.getByRole('cell', { name: 'endpoint-runs', exact: true }).waitFor();
    await page.getByRole('heading', { name: 'Spend per key this month', level: 2 }).waitFor();
    await page.getByText(/No model calls this month yet|model calls since/).waitFor(); // GET /api/usage answered
    check(await page.getByText('Spend unavailable').count() === 0, 'the spend section could not read /api/usage');
    await page.waitForLoadState('networkidle');
    const afterSignIn = weightSince(signingIn);
    const stored = await page.evaluate(() => ({
      local: localStorage.length, cookie: document.cookie, session: Object.keys(sessionStorage), url: location.href,
    }));
    check(stored.local === 0, `localStorage holds ${stored.local} entries`);
    check(stored.cookie === '', `cookies: ${stored.cookie}`);
    check(stored.session.includes('caduceus.console.key'), `sessionStorage: ${stored.session}`);
    check(!stored.url.includes(key), 'the key is in the page URL');
    const overview = await shot('sign-in');
    await page.emulateMedia({ colorScheme: 'dark' });
    const dark = await shot('overview-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 390, height: 844 });
    const phone = await shot('overview-phone');
    await page.setViewportSize({ width: 1280, height: 800 });

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    check(await page.evaluate(() => sessionStorage.length) === 0, 'sign-out left something in sessionStorage');
    return { shots: [refused, overview, dark, phone], firstLoad, afterSignIn,
      expected: [{ method: 'GET', path: '/health/detailed', status: 401 }] };
  },

  /** A run whose command needs approval: "waiting for approval" appears live, approved in the page. */
  async approval() {
    await signIn();
    await page.getByRole('link', { name: 'Runs' }).click();
    await page.getByText('Start a new run').click();
    await page.getByLabel('Prompt').fill('clean up the build folder');
    await page.getByRole('button', { name: 'Start run' }).click();
    await page.waitForURL(/#\/runs\/run_[0-9a-f]+$/);
    await runStatus('waiting for approval');
    await page.getByRole('heading', { name: 'Waiting for approval' }).waitFor();
    await page.locator('.approval-panel pre', { hasText: 'rm -rf' }).waitFor();
    const waiting = await shot('approval-waiting');
    // a reload shows the timeline at once and resumes the stream after the last event seen
    await page.reload();
    await page.getByText('Approval requested').waitFor();
    await runStatus('waiting for approval');
    await until(() => requests.some((r) => r.url.endsWith('/events') && Number(r.lastEventId) > 0),
      () => `no resumed event stream: ${JSON.stringify(requests.filter((r) => r.url.endsWith('/events')))}`);
    await page.getByRole('button', { name: 'Approve once' }).click();
    await runStatus('completed');
    const final = page.locator('.event.final');
    await final.waitFor();
    const output = await final.innerText();
    check(output.includes('removed'), `final answer: ${output}`);
    await page.getByText('Approval answered: once').waitFor();
    const runId = page.url().split('/').pop();
    return { shots: [waiting, await shot('approval')], runId };
  },

  /** Steer one run (the guidance reaches the model), stop another, and stop a third that waits for its caller. */
  async 'steer-and-stop'() {
    await signIn();
    await go(`#/runs/${env.STEER_RUN}`);
    await runStatus('running');
    await page.getByLabel('Steer the run').fill('also check the logs');
    await page.getByRole('button', { name: 'Send guidance' }).click();
    await page.getByText('Guidance accepted.').waitFor();
    await page.locator('.event.steer').waitFor();
    await runStatus('completed');
    const final = await page.locator('.event.final').innerText();
    check(final.includes('saw: also check the logs'), `final answer: ${final}`);
    const steered = await shot('steer');

    await go(`#/runs/${env.STOP_RUN}`);
    await runStatus('running');
    await page.locator('.event.tool').waitFor();
    await page.getByRole('button', { name: 'Stop run' }).click();
    await runStatus('cancelled');
    await page.locator('.event.cancelled').waitFor();
    const stopped = await shot('steer-and-stop');

    // A run that waits for its caller's own tool outputs (issue 42) shows the pending call, and is stopped too.
    await go(`#/runs/${env.WAITING_RUN}`);
    await runStatus('requires action');
    await page.getByRole('heading', { name: "Waiting for the caller's tool outputs" }).waitFor();
    await page.getByText('get_weather({"city":"Oslo"})').waitFor();
    const waiting = await shot('requires-action');
    await page.getByRole('button', { name: 'Stop run' }).click();
    await runStatus('cancelled');
    return { shots: [steered, stopped, waiting] };
  },

  /** A job: an invalid schedule, then a valid one with its next 5 times, run now, its history entry. */
  async job() {
    await signIn();
    await page.getByRole('link', { name: 'Jobs' }).click();
    await page.getByText('Create a job').click();
    await page.getByLabel('Name').fill('Nightly report');
    await page.getByLabel('Schedule', { exact: true }).fill('every banana');
    await page.locator('.preview .notice.error', { hasText: "Invalid schedule 'every banana'" }).waitFor();
    const invalid = await shot('job-invalid-schedule');
    await page.getByLabel('Schedule', { exact: true }).fill('every 30m');
    await page.locator('.preview', { hasText: 'Valid:' }).waitFor();
    const times = await page.locator('.preview ol.times li').count();
    check(times === 5, `${times} preview times`);
    await page.getByLabel('Prompt').fill('Write the nightly report');
    const preview = await shot('job-preview');
    await page.getByRole('button', { name: 'Create job' }).click();
    await page.waitForURL(/#\/jobs\/[0-9a-f]{12}$/);
    await page.getByRole('heading', { name: 'Job Nightly report' }).waitFor();
    await page.getByText('This job has not run yet').waitFor();
    await page.getByRole('button', { name: 'Run Nightly report now' }).click();
    const row = page.locator('table tbody tr', { hasText: 'completed' });
    await row.waitFor();
    const text = await row.innerText();
    check(text.includes('Report ready') && text.includes('manual'), `history row: ${text}`);
    const history = await shot('job');
    await page.locator('table tbody tr a', { hasText: 'run_' }).first().click();
    await page.waitForURL(/#\/runs\/run_/);
    await runStatus('completed');
    return { shots: [invalid, preview, history, await shot('job-run')],
      expected: [{ method: 'POST', path: '/api/jobs/preview', status: 400 }] };
  },

  /**
   * The lists: a conversation object (CONV_ID) is shown and deleted, a running background response
   * (BACKGROUND_ID) cancelled; then a conversation chain made of two /v1/responses turns, as a transcript;
   * then deleted.
   */
  async conversation() {
    await signIn();
    await page.getByRole('link', { name: 'Conversations' }).click();
    const objects = page.locator('section', { has: page.getByRole('heading', { name: 'Conversation objects' }) });
    await objects.getByText(env.CONV_ID).waitFor();
    await page.getByRole('button', { name: `Cancel response ${env.BACKGROUND_ID}` }).click();
    await page.locator('tr', { hasText: env.BACKGROUND_ID }).getByText('cancelled').waitFor();
    const lists = await shot('conversations');
    await page.getByRole('button', { name: `Delete conversation ${env.CONV_ID}` }).click();
    await objects.getByText('No conversation objects').waitFor();
    await page.getByRole('link', { name: 'intro' }).click();
    const transcript = page.locator('ol.transcript');
    for (const text of ['My name is Ana.', 'Nice to meet you, Ana.', 'What is my name?', 'Your name is Ana.']) {
      await transcript.locator('.bubble', { hasText: text }).first().waitFor();
    }
    await transcript.locator('.bubble.tool', { hasText: 'terminal' }).first().waitFor();
    await transcript.locator('.bubble.tool', { hasText: 'Ana from the tool' }).first().waitFor();
    const chain = await shot('conversation');
    await page.getByRole('button', { name: 'Delete the conversation "intro"' }).click();
    await page.waitForURL(/#\/conversations$/);
    await page.getByText('No named conversations').waitFor();
    // a poll of the chain's page may still be answered after the delete, before the page is left
    return { shots: [lists, chain], expected: [{ method: 'GET', path: '/v1/responses/resp_[0-9a-f]+(/input_items)?', status: 404 }] };
  },

  /**
   * Webhooks: a delivery that failed (the receiver answered 400; its webhook-id WEBHOOK_ID) is listed with its
   * answer, and sent again from the page: its attempts go to 2.
   */
  async webhooks() {
    await signIn();
    await page.getByRole('link', { name: 'Webhooks' }).click();
    const row = page.locator('tr', { hasText: env.WEBHOOK_ID });
    await row.getByText('failed').waitFor();
    await row.getByText('HTTP 400').waitFor();
    const listed = await shot('webhooks');
    await page.getByRole('button', { name: `Redeliver ${env.DELIVERY_ID}` }).click();
    await row.locator('td', { hasText: /^2$/ }).waitFor();
    return { shots: [listed] };
  },

  /** A run whose agent delivered a file: the run page lists it and downloads it (the content needs the key). */
  async files() {
    await signIn();
    await go(`#/runs/${env.RUN_ID}`);
    const button = page.getByRole('button', { name: `Download ${env.FILENAME}` });
    await button.waitFor();
    const listed = await shot('files');
    const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
    const fs = await import('node:fs');
    return { shots: [listed], filename: download.suggestedFilename(), content: fs.readFileSync(await download.path(), 'utf8') };
  },

  /** The chat playground: a streamed answer with the tool's progress shown as it happens. */
  async chat() {
    await signIn();
    await page.getByRole('link', { name: 'Chat' }).click();
    const message = page.getByRole('textbox', { name: 'Message' });
    await message.fill('Run the tool please');
    await message.press('Enter');
    const step = page.locator('.progress .step', { hasText: 'terminal' });
    await step.waitFor();
    await page.locator('.bubble.assistant .answer', { hasText: 'The tool said hello.' }).waitFor();
    await page.locator('.progress .step.completed', { hasText: 'done' }).waitFor();
    return { shots: [await shot('chat')] };
  },
};

let result;
try {
  if (!scenarios[scenario]) throw new Error(`unknown scenario ${scenario}`);
  result = await scenarios[scenario]();
  const violations = await page.evaluate(() => window.__cspViolations ?? []);
  for (const v of violations) problems.push(`CSP violation: ${v}`);
  const expected = result.expected ?? [];
  for (const e of errors) {
    const path = new URL(e.url).pathname;
    if (!expected.some((x) => x.method === e.method && new RegExp(`^${x.path}$`).test(path) && x.status === e.status)) {
      problems.push(`unexpected HTTP ${e.status}: ${e.method} ${e.url}`);
    }
  }
  if (problems.length) throw new Error(problems.join('\n'));
  console.log(JSON.stringify({ ok: true, scenario, ...result, requests, errors }));
} catch (error) {
  let failure = null;
  try {
    failure = await shot(`${scenario}-failure`);
  } catch {
    // the browser is gone
  }
  console.log(JSON.stringify({ ok: false, scenario, error: String(error?.stack ?? error), problems, failure, requests, errors,
    page: await page.locator('main').innerText().catch(() => null) }));
  process.exitCode = 1;
} finally {
  await browser.close();
}
