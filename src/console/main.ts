// The web console: the sandbox's runs, one run live, webhooks, and the sandbox's controls. It is a client of
// the public /v1 API and the documented /_sandbox/ control API, nothing else.
import './console.css';
import { html } from 'htm/preact';
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { whenSessionEnds } from './api.js';
import { RunPage } from './run.js';
import { RunsPage } from './runs.js';
import { SandboxPage } from './sandbox.js';
import { Link, LiveRegion, useLocation } from './ui.js';
import { WebhooksPage } from './webhooks.js';

function App() {
  const location = useLocation();
  const [ended, setEnded] = useState(false);
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  useEffect(() => whenSessionEnds(() => setEnded(true)), []);
  const path = location.split('?')[0]!.replace(/\/+$/, '') || '/console';
  const runMatch = /^\/console\/runs\/([^/]+)$/.exec(path);
  const section =
    runMatch || path === '/console' || path === '/console/runs'
      ? 'runs'
      : path === '/console/webhooks'
        ? 'webhooks'
        : path === '/console/sandbox'
          ? 'sandbox'
          : 'missing';
  // A new page moves focus to its heading, as a page load would, so a screen reader says where it is.
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    main.current?.querySelector<HTMLElement>('h1')?.focus();
  }, [location]);
  let page;
  if (runMatch) page = html`<${RunPage} id=${decodeURIComponent(runMatch[1]!)} />`;
  else if (section === 'runs') page = html`<${RunsPage} search=${location.split('?')[1] ?? ''} />`;
  else if (section === 'webhooks') page = html`<${WebhooksPage} />`;
  else if (section === 'sandbox') page = html`<${SandboxPage} />`;
  else
    page = html`<h1 tabindex="-1">Not found</h1><p>No page here. <${Link} href="/console/">See the runs</${Link}>.</p>`;
  return html`
    <a class="skip" href="#main">Skip to content</a>
    <header class="top">
      <span class="brand">orc <span class="muted">sandbox console</span></span>
      <nav aria-label="Sections">
        <ul>
          <li><${Link} href="/console/" current=${section === 'runs'}>Runs</${Link}></li>
          <li><${Link} href="/console/webhooks" current=${section === 'webhooks'}>Webhooks</${Link}></li>
          <li><${Link} href="/console/sandbox" current=${section === 'sandbox'}>Sandbox</${Link}></li>
        </ul>
      </nav>
    </header>
    ${ended ? html`<p class="error banner" role="alert">This console session has ended (the sandbox restarted, or the link is stale). Run <code>orc sandbox console</code> for a new link.</p>` : null}
    <main id="main" ref=${main}>${page}</main>
    <${LiveRegion} />`;
}

const root = document.getElementById('app')!;
root.textContent = '';
render(html`<${App} />`, root);
