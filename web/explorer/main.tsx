/** @jsxImportSource react */
import { GraphiQL } from 'graphiql';
import 'graphiql/style.css';
import './page.css';
import { createRoot } from 'react-dom/client';

// The GraphQL explorer at GET /graphql (GraphiQL, bundled: it works offline).
// The Authorization header comes from the web interface's sign-in when this
// tab has one; otherwise the first tab shows how to get a token.

const token = sessionStorage.getItem('switchboard.token');

const SIGN_IN = `# Sign in, copy the token into the Authorization header (Headers, below), then run the query.
mutation SignIn {
  login(email: "owner@acme.test", password: "switchboard") { token }
}

query Me {
  me { user { name email } company { name } role { title } permissions }
}
`;

const SIGNED_IN = `# Signed in through the web interface: the Authorization header is set (Headers, below).
query Me {
  me { user { name email } company { name } role { title } permissions }
}

query Webhooks {
  webhooks(perPage: 5) { records { id title url events active } pagination { total } }
}
`;

const fetcher = async (params: unknown, options?: { headers?: Record<string, string> }) => {
  const response = await fetch('/graphql', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/graphql-response+json, application/json',
      ...options?.headers,
    },
    body: JSON.stringify(params),
  });
  return response.json();
};

const headers = JSON.stringify(
  { Authorization: token ? `Bearer ${token}` : 'Bearer <token from the login mutation>' },
  null,
  2,
);

// Everything GraphiQL keeps (tabs, history, headers with their token) lives for this tab only, like the token itself.
createRoot(document.getElementById('explorer')!).render(
  <>
    <header className="explorer-head">
      <a href="/">‹ Back to Switchboard</a>
      <span>GraphQL explorer</span>
      <a href="/api/docs">REST API docs</a>
    </header>
    <GraphiQL
      storage={sessionStorage}
      shouldPersistHeaders={false}
      fetcher={fetcher}
      defaultQuery={token ? SIGNED_IN : SIGN_IN}
      initialQuery={token ? SIGNED_IN : SIGN_IN}
      defaultHeaders={headers}
      initialHeaders={headers}
      defaultEditorToolsVisibility="headers"
    />
  </>,
);
