import { useState } from 'preact/hooks';
import { ApiError, gql } from './api';
import { TextField } from './ui';

const LOGIN = `mutation SignIn($email: String!, $password: String!) { login(email: $email, password: $password) { token } }`;

interface DemoLogins {
  password: string;
  logins: { email: string; shows: string }[];
}

/** In development with demo data the page carries the demo logins (src/web/serve.ts); elsewhere there are none. */
function demoLogins(): DemoLogins | null {
  const content = document.querySelector('meta[name="switchboard-demo-logins"]')?.getAttribute('content');
  if (!content) return null;
  try {
    return JSON.parse(content) as DemoLogins;
  } catch {
    return null;
  }
}

export function SignIn(props: { notice: string | null; onSignedIn: (token: string) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const data = await gql<{ login: { token: string } | null }>(LOGIN, { email, password });
      if (!data.login) throw new ApiError('The email or password is wrong.', 'UNAUTHENTICATED');
      props.onSignedIn(data.login.token);
    } catch (caught) {
      setError(caught instanceof ApiError ? caught : new ApiError(String(caught), 'ERROR'));
    } finally {
      setBusy(false);
    }
  };

  const general = error && Object.keys(error.fields).length === 0 ? error.message : null;
  const demo = demoLogins();
  return (
    <main class="sign-in" id="main">
      <form onSubmit={submit} aria-describedby={general ? 'sign-in-error' : undefined} noValidate>
        <h1>Sign in to Switchboard</h1>
        {props.notice && (
          <p class="banner info" role="status">
            {props.notice}
          </p>
        )}
        <TextField
          id="email"
          label="Email"
          field="email"
          type="email"
          autocomplete="username"
          required
          value={email}
          onValue={setEmail}
          error={error}
        />
        <TextField
          id="password"
          label="Password"
          field="password"
          type="password"
          autocomplete="current-password"
          required
          value={password}
          onValue={setPassword}
          error={error}
        />
        {general && (
          <p id="sign-in-error" class="banner error" role="alert">
            {general}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        {demo && (
          <section class="demo" aria-labelledby="demo-title">
            <h2 id="demo-title">Demo logins (development)</h2>
            <p class="hint">
              Each uses the password <code>{demo.password}</code>. Choose one to fill the form.
            </p>
            <ul>
              {demo.logins.map((login) => (
                <li key={login.email}>
                  <button
                    type="button"
                    class="link"
                    onClick={() => {
                      setEmail(login.email);
                      setPassword(demo.password);
                    }}
                  >
                    {login.email}
                  </button>
                  <span class="hint"> {login.shows}</span>
                </li>
              ))}
            </ul>
          </section>
        )}
      </form>
    </main>
  );
}
