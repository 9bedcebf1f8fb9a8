import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, gql, session, whenSignedOut } from './api';
import { SignIn } from './sign-in';
import { ZoneContext } from './ui';
import { WebhookPage } from './webhook-page';
import { WebhooksPage } from './webhooks-page';
import { LiveCallsPage } from './live-calls';
import { CallRoutingPage } from './call-routing-page';
import { DoNotCallPage } from './do-not-call-page';
import { CampaignsPage } from './campaigns-page';
import './styles.css';

export interface Viewer {
  user: { name: string; email: string };
  company: { name: string; timeZone: string };
  role: { title: string };
  permissions: string[];
}

const VIEWER = `query Viewer { me { user { name email } company { name timeZone } role { title } permissions } }`;

/** Hash routes keep the server simple: every screen is `/` plus a fragment. */
function useRoute(): string {
  const [route, setRoute] = useState(location.hash.slice(1) || '/setup/webhooks');
  useEffect(() => {
    const changed = () => setRoute(location.hash.slice(1) || '/setup/webhooks');
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return route;
}

function App() {
  const [viewer, setViewer] = useState<Viewer | null>(null);
  const [state, setState] = useState<'checking' | 'signed-out' | 'ready'>(session.token ? 'checking' : 'signed-out');
  const [notice, setNotice] = useState<string | null>(null);
  const route = useRoute();

  const load = async () => {
    try {
      const data = await gql<{ me: Viewer }>(VIEWER);
      setViewer(data.me);
      setState('ready');
    } catch (error) {
      setNotice(error instanceof ApiError ? error.message : String(error));
      setState('signed-out');
    }
  };

  useEffect(() => {
    whenSignedOut(() => {
      setViewer(null);
      setNotice('Your session has ended. Sign in again.');
      setState('signed-out');
    });
    if (session.token) void load();
  }, []);

  const signOut = async () => {
    try {
      await gql('mutation SignOut { logout }');
    } catch {
      // The token may already be gone; the tab forgets it either way.
    }
    session.clear();
    setViewer(null);
    setNotice('You are signed out.');
    setState('signed-out');
  };

  if (state === 'checking') return <p class="boot">Loading Switchboard…</p>;
  if (state === 'signed-out' || !viewer) {
    return (
      <SignIn
        notice={notice}
        onSignedIn={(token) => {
          session.set(token);
          setNotice(null);
          setState('checking');
          void load();
        }}
      />
    );
  }

  const detail = /^\/setup\/webhooks\/(\d+)$/.exec(route);
  return (
    <ZoneContext.Provider value={viewer.company.timeZone}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Switchboard</span>
        <span class="who">
          <span class="company">{viewer.company.name}</span>
          <span class="user">
            {viewer.user.name} ({viewer.role.title})
          </span>
        </span>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </header>
      <div class="layout">
        <nav class="side" aria-label="Main">
          <p class="nav-group" id="nav-setup">
            Setup
          </p>
          <ul aria-labelledby="nav-setup">
            <li>
              <a href="#/setup/webhooks" aria-current={route.startsWith('/setup/webhooks') ? 'page' : undefined}>
                Webhooks
              </a>
            </li>
            <li>
              <a href="#/setup/call-routing" aria-current={route === '/setup/call-routing' ? 'page' : undefined}>
                Call routing
              </a>
            </li>
            <li>
              <a href="#/setup/do-not-call" aria-current={route === '/setup/do-not-call' ? 'page' : undefined}>
                Do not call
              </a>
            </li>
          </ul>
          <p class="nav-group" id="nav-dialer">
            Dialer
          </p>
          <ul aria-labelledby="nav-dialer">
            <li>
              <a href="#/campaigns" aria-current={route.startsWith('/campaigns') ? 'page' : undefined}>
                Campaigns
              </a>
            </li>
          </ul>
          <p class="nav-group" id="nav-calls">
            Calls
          </p>
          <ul aria-labelledby="nav-calls">
            <li>
              <a href="#/calls/live" aria-current={route === '/calls/live' ? 'page' : undefined}>
                Live calls
              </a>
            </li>
          </ul>
          <p class="nav-group" id="nav-developers">
            Developers
          </p>
          <ul aria-labelledby="nav-developers">
            <li>
              {/* Its own tab, the app staying open here; rel="opener" lets it start with this tab's sign-in
                  (sessionStorage is copied only to an opened tab that keeps its opener). */}
              <a href="/graphql" target="_blank" rel="opener">
                GraphQL explorer
                <NewTab />
              </a>
            </li>
            <li>
              <a href="/api/docs" target="_blank" rel="noopener">
                REST API docs
                <NewTab />
              </a>
            </li>
          </ul>
        </nav>
        <main id="main" tabIndex={-1}>
          {route === '/calls/live' ? (
            viewer.permissions.includes('view-ai-dashboard') ? (
              <LiveCallsPage />
            ) : (
              <section>
                <h1>Live calls</h1>
                <p class="banner info" role="status">
                  Your role ({viewer.role.title}) does not include the “view-ai-dashboard” permission, so the calls of{' '}
                  {viewer.company.name} are hidden.
                </p>
              </section>
            )
          ) : route === '/setup/call-routing' ? (
            viewer.permissions.includes('view-call-routing') ? (
              <CallRoutingPage canManage={viewer.permissions.includes('manage-call-routing')} />
            ) : (
              <section>
                <h1>Call routing</h1>
                <p class="banner info" role="status">
                  Your role ({viewer.role.title}) does not include the “view-call-routing” permission, so the decision
                  endpoints of {viewer.company.name} are hidden.
                </p>
              </section>
            )
          ) : route === '/campaigns' || route.startsWith('/campaigns/') ? (
            viewer.permissions.includes('view-campaigns') ? (
              <CampaignsPage
                id={/^\/campaigns\/(\d+)$/.exec(route)?.[1] ?? null}
                canManage={viewer.permissions.includes('manage-campaigns')}
              />
            ) : (
              <section>
                <h1>Campaigns</h1>
                <p class="banner info" role="status">
                  Your role ({viewer.role.title}) does not include the “view-campaigns” permission, so the campaigns of{' '}
                  {viewer.company.name} are hidden.
                </p>
              </section>
            )
          ) : route === '/setup/do-not-call' ? (
            viewer.permissions.includes('view-campaigns') ? (
              <DoNotCallPage canManage={viewer.permissions.includes('manage-campaigns')} />
            ) : (
              <section>
                <h1>Do not call</h1>
                <p class="banner info" role="status">
                  Your role ({viewer.role.title}) does not include the “view-campaigns” permission, so the do-not-call
                  list of {viewer.company.name} is hidden.
                </p>
              </section>
            )
          ) : !route.startsWith('/setup/webhooks') ? (
            <section>
              <h1>Not found</h1>
              <p>
                This page does not exist. Go to <a href="#/setup/webhooks">Setup › Webhooks</a>.
              </p>
            </section>
          ) : !viewer.permissions.includes('view-webhooks') ? (
            <section>
              <h1>Webhooks</h1>
              <p class="banner info" role="status">
                Your role ({viewer.role.title}) does not include the “view-webhooks” permission, so the webhooks of{' '}
                {viewer.company.name} are hidden. Ask an owner of the company to add it to your role.
              </p>
            </section>
          ) : detail ? (
            <WebhookPage id={Number(detail[1])} canManage={viewer.permissions.includes('manage-webhooks')} />
          ) : (
            <WebhooksPage canManage={viewer.permissions.includes('manage-webhooks')} />
          )}
        </main>
      </div>
    </ZoneContext.Provider>
  );
}

const root = document.getElementById('app')!;
root.replaceChildren(); // the "Loading" text of index.html
render(<App />, root);

/** Marks a link that opens a new tab, for the eye and for screen readers. */
function NewTab() {
  return (
    <>
      <span aria-hidden="true"> ↗</span>
      <span class="sr-only"> (opens in a new tab)</span>
    </>
  );
}
