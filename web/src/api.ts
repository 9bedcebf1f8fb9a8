// The web interface speaks only GraphQL, with the signed-in user's token. The
// token lives in sessionStorage: it is the tab's, gone when the tab closes.

const TOKEN_KEY = 'switchboard.token';

export const session = {
  get token(): string | null {
    return sessionStorage.getItem(TOKEN_KEY);
  },
  set(token: string): void {
    sessionStorage.setItem(TOKEN_KEY, token);
  },
  /** Forgets the token and everything else the tab kept with it (the explorer's tabs and headers carry it too). */
  clear(): void {
    sessionStorage.clear();
  },
};

/** Field name (as the API names it: `url`, `form_data`, `events.2`) to its messages. */
export type FieldErrors = Record<string, string[]>;

export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly fields: FieldErrors = {},
  ) {
    super(message);
  }

  /** The messages of one form field, `events.3` counting as `events`. */
  fieldMessages(field: string): string[] {
    return Object.entries(this.fields)
      .filter(([name]) => name === field || name.startsWith(`${field}.`))
      .flatMap(([, messages]) => messages);
  }
}

/** Called when the API says the token is no longer good (expired, revoked). */
let onSignedOut: () => void = () => undefined;
export const whenSignedOut = (handler: () => void) => {
  onSignedOut = handler;
};

export async function gql<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/graphql-response+json, application/json',
  };
  const token = session.token;
  if (token) headers.authorization = `Bearer ${token}`;
  let response: Response;
  try {
    response = await fetch('/graphql', { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  } catch {
    throw new ApiError('The service cannot be reached. Check the connection and try again.', 'NETWORK');
  }
  let body: { data?: T; errors?: { message: string; extensions?: { code?: string; errors?: FieldErrors } }[] };
  try {
    body = await response.json();
  } catch {
    throw new ApiError(`The service answered ${response.status} without a readable body.`, 'BAD_RESPONSE');
  }
  const error = body.errors?.[0];
  if (error) {
    const code = error.extensions?.code ?? 'ERROR';
    if (code === 'UNAUTHENTICATED' && token) {
      session.clear();
      onSignedOut();
    }
    throw new ApiError(error.message, code, error.extensions?.errors ?? {});
  }
  return body.data as T;
}
