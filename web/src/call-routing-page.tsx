import { useEffect, useState } from 'preact/hooks';
import { ApiError, gql } from './api';
import { CallPathGlanceCell, CallPathHealthPanel, type CallPathKind, useCallPathGlances } from './call-path-health';
import { asApiError } from './delivery-log';
import { Dialog, ErrorBanner, FieldError, Notice, TableHead, TextField } from './ui';
import { SecretBox } from './webhook-form';

// Setup > Call routing: the decision endpoints asked how to route an inbound
// call (the company's, and one per number), each with its deadline, fallback
// and circuit breaker; add, edit and delete them (docs/call-routing.md). Each one's last day at a glance, and its
// health charted on demand; the agents' tools listed with theirs.

interface Endpoint {
  id: string;
  url: string;
  phoneNumberId: string | null;
  deadlineMs: number;
  hedge: boolean;
  fallback: { action: string; agentId: string | null; forwardTo: string | null };
  breaker: { state: string; consecutiveFailures: number; recentP95Ms: number | null };
}
interface Choice {
  id: string;
  label: string;
}

const FIELDS =
  'id url phoneNumberId deadlineMs hedge fallback { action agentId forwardTo } breaker { state consecutiveFailures recentP95Ms }';
const LIST = `query CallRouting { decisionEndpoints { ${FIELDS} }
  phoneNumbers(perPage: 100) { records { id phoneNo } } agents(perPage: 100) { records { id name } } }`;
const INPUT = '$input: DecisionEndpointInput!';
const CREATE = `mutation CreateDecisionEndpoint(${INPUT}) { createDecisionEndpoint(input: $input) { endpoint { id } secret } }`;
const UPDATE = `mutation UpdateDecisionEndpoint($id: ID!, ${INPUT}) { updateDecisionEndpoint(id: $id, input: $input) { id } }`;
const DELETE = 'mutation DeleteDecisionEndpoint($id: ID!) { deleteDecisionEndpoint(id: $id) }';
const BREAKER: Record<string, string> = {
  closed: 'Closed: asked',
  open: 'Open: the fallback answers',
  half_open: 'Half-open: the next call probes',
};

export function CallRoutingPage(props: { canManage: boolean }) {
  const [endpoints, setEndpoints] = useState<Endpoint[] | null>(null);
  const [numbers, setNumbers] = useState<Choice[]>([]);
  const [agents, setAgents] = useState<Choice[]>([]);
  const [error, setError] = useState<ApiError | null>(null);
  const [editing, setEditing] = useState<Endpoint | 'new' | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [charted, setCharted] = useState<{ kind: CallPathKind; id: string; name: string } | null>(null);
  const glances = useCallPathGlances(
    'decision',
    (endpoints ?? []).map((e) => String(e.id)),
  );
  const load = async () => {
    try {
      const data = await gql<{
        decisionEndpoints: Endpoint[];
        phoneNumbers: { records: Array<{ id: string; phoneNo: string }> };
        agents: { records: Array<{ id: string; name: string }> };
      }>(LIST);
      setEndpoints(data.decisionEndpoints);
      setNumbers(data.phoneNumbers.records.map((n) => ({ id: String(n.id), label: n.phoneNo })));
      setAgents(data.agents.records.map((a) => ({ id: String(a.id), label: a.name })));
      setError(null);
    } catch (caught) {
      setError(asApiError(caught));
    }
  };
  useEffect(() => void load(), []);
  const scope = (e: Endpoint) =>
    e.phoneNumberId === null
      ? 'Every number'
      : (numbers.find((n) => n.id === String(e.phoneNumberId))?.label ?? `#${e.phoneNumberId}`);
  const fallback = (e: Endpoint) =>
    e.fallback.action === 'forward'
      ? `Forward to ${e.fallback.forwardTo}`
      : e.fallback.action === 'reject'
        ? 'Reject'
        : `Answer: ${agents.find((a) => a.id === String(e.fallback.agentId))?.label ?? "the number's agent"}`;
  const remove = async (e: Endpoint) => {
    try {
      await gql(DELETE, { id: String(e.id) });
      setNotice(`The decision endpoint for ${scope(e)} was deleted.`);
      void load();
    } catch (caught) {
      setError(asApiError(caught));
    }
  };
  return (
    <section aria-labelledby="routing-title">
      <h1 id="routing-title">Call routing</h1>
      <p class="hint">
        When a call reaches one of your numbers, Switchboard asks your decision endpoint how to route it and waits up to
        its deadline; otherwise the fallback decides. A number's own endpoint comes before the company's.
      </p>
      <Notice text={notice} />
      <ErrorBanner error={error} />
      {secret && (
        <SecretBox secret={secret} note="Shown this once: verify each decision request's webhook-signature with it." />
      )}
      {props.canManage && (
        <button type="button" onClick={() => setEditing('new')}>
          Add decision endpoint
        </button>
      )}
      {endpoints && endpoints.length === 0 && <p class="empty">No decision endpoint: the number's AI agent answers.</p>}
      {endpoints && endpoints.length > 0 && (
        <table>
          <caption class="sr-only">Decision endpoints ({endpoints.length})</caption>
          <TableHead columns={['For', 'URL', 'Deadline', 'Fallback', 'Breaker', 'Last day']} actions />
          <tbody>
            {endpoints.map((e) => (
              <tr key={e.id}>
                <td data-label="For">{scope(e)}</td>
                <td data-label="URL" class="mono">
                  {e.url}
                </td>
                <td data-label="Deadline">
                  {e.deadlineMs} ms{e.hedge ? ', hedged' : ''}
                </td>
                <td data-label="Fallback">{fallback(e)}</td>
                <td data-label="Breaker">
                  {BREAKER[e.breaker.state] ?? e.breaker.state}
                  {e.breaker.consecutiveFailures > 0 ? ` (${e.breaker.consecutiveFailures} failures in a row)` : ''}
                </td>
                <td data-label="Last day">
                  <CallPathGlanceCell
                    glance={glances.get(String(e.id))}
                    label={`Hourly questions of the endpoint for ${scope(e)}`}
                  />
                </td>
                <td data-label="Actions">
                  <button
                    type="button"
                    aria-label={`Health of the endpoint for ${scope(e)}`}
                    onClick={() =>
                      setCharted({ kind: 'decision', id: String(e.id), name: `the endpoint for ${scope(e)}` })
                    }
                  >
                    Health
                  </button>
                  {props.canManage && (
                    <>
                      {' '}
                      <button
                        type="button"
                        onClick={() => setEditing(e)}
                        aria-label={`Edit the endpoint for ${scope(e)}`}
                      >
                        Edit
                      </button>{' '}
                      <button
                        type="button"
                        onClick={() => remove(e)}
                        aria-label={`Delete the endpoint for ${scope(e)}`}
                      >
                        Delete
                      </button>
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <AgentTools agents={agents} onChart={setCharted} />
      {charted && <CallPathHealthPanel key={`${charted.kind}-${charted.id}`} {...charted} />}
      {editing && (
        <EndpointForm
          endpoint={editing === 'new' ? null : editing}
          numbers={numbers}
          agents={agents}
          onClose={() => setEditing(null)}
          onSaved={(text, shown) => {
            setEditing(null);
            setNotice(text);
            setSecret(shown ?? null);
            void load();
          }}
        />
      )}
    </section>
  );
}

interface Tool {
  id: string;
  name: string;
  url: string;
  deadlineMs: number;
  breaker: { state: string; consecutiveFailures: number };
}

/** The agents' tools, each with its last day at a glance (read here; changed through the API: docs/call-routing.md). */
function AgentTools(props: {
  agents: Choice[];
  onChart: (chart: { kind: CallPathKind; id: string; name: string }) => void;
}) {
  const [tools, setTools] = useState<Array<Tool & { agent: string }> | null>(null);
  useEffect(() => {
    if (props.agents.length === 0) return;
    const query = `query AgentToolsOfAll { ${props.agents
      .map(
        (a, i) =>
          `a${i}: agentTools(agentId: "${a.id}") { id name url deadlineMs breaker { state consecutiveFailures } }`,
      )
      .join(' ')} }`;
    gql<Record<string, Tool[]>>(query)
      .then((data) => setTools(props.agents.flatMap((a, i) => data[`a${i}`].map((t) => ({ ...t, agent: a.label })))))
      // Without view-agents the tools are not shown.
      .catch(() => setTools(null));
  }, [props.agents.map((a) => a.id).join()]);
  const glances = useCallPathGlances(
    'tool',
    (tools ?? []).map((t) => String(t.id)),
  );
  if (!tools) return null;
  return (
    <section aria-labelledby="tools-title">
      <h2 id="tools-title">Agent tools</h2>
      <p class="hint">
        The endpoints your agents call during a call, each within its deadline; added and changed through the API (POST
        /api/agents/{'{id}'}/tools).
      </p>
      {tools.length === 0 ? (
        <p class="empty">No agent has a tool.</p>
      ) : (
        <table>
          <caption class="sr-only">Agent tools ({tools.length})</caption>
          <TableHead columns={['Agent', 'Tool', 'URL', 'Deadline', 'Breaker', 'Last day']} actions />
          <tbody>
            {tools.map((t) => (
              <tr key={t.id}>
                <td data-label="Agent">{t.agent}</td>
                <td data-label="Tool" class="mono">
                  {t.name}
                </td>
                <td data-label="URL" class="mono">
                  {t.url}
                </td>
                <td data-label="Deadline">{t.deadlineMs} ms</td>
                <td data-label="Breaker">{BREAKER[t.breaker.state] ?? t.breaker.state}</td>
                <td data-label="Last day">
                  <CallPathGlanceCell glance={glances.get(String(t.id))} label={`Hourly calls of the tool ${t.name}`} />
                </td>
                <td data-label="Actions">
                  <button
                    type="button"
                    aria-label={`Health of the tool ${t.name} of ${t.agent}`}
                    onClick={() => props.onChart({ kind: 'tool', id: String(t.id), name: `the tool ${t.name}` })}
                  >
                    Health
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function EndpointForm(props: {
  endpoint: Endpoint | null;
  numbers: Choice[];
  agents: Choice[];
  onClose: () => void;
  onSaved: (notice: string, secret?: string) => void;
}) {
  const e = props.endpoint;
  const [url, setUrl] = useState(e?.url ?? '');
  const [numberId, setNumberId] = useState(e?.phoneNumberId === null || !e ? '' : String(e.phoneNumberId));
  const [deadline, setDeadline] = useState(String(e?.deadlineMs ?? 2000));
  const [hedge, setHedge] = useState(e?.hedge ?? false);
  const [action, setAction] = useState(e?.fallback.action ?? 'answer');
  const [agentId, setAgentId] = useState(e?.fallback.agentId ? String(e.fallback.agentId) : '');
  const [forwardTo, setForwardTo] = useState(e?.fallback.forwardTo ?? '');
  const [error, setError] = useState<ApiError | null>(null);
  const save = async (event: Event) => {
    event.preventDefault();
    const input = {
      url,
      phoneNumberId: numberId || null,
      deadlineMs: Number(deadline),
      hedge,
      fallbackAction: action,
      fallbackAgentId: action === 'answer' ? agentId || null : null,
      fallbackForwardTo: action === 'forward' ? forwardTo : null,
    };
    try {
      if (e) {
        await gql(UPDATE, { id: String(e.id), input });
        props.onSaved('The decision endpoint was saved.');
      } else {
        const data = await gql<{ createDecisionEndpoint: { secret: string } }>(CREATE, { input });
        props.onSaved('The decision endpoint was added.', data.createDecisionEndpoint.secret);
      }
    } catch (caught) {
      setError(asApiError(caught));
    }
  };
  return (
    <Dialog title={e ? 'Edit decision endpoint' : 'Add decision endpoint'} onClose={props.onClose}>
      <form onSubmit={save} noValidate>
        <ErrorBanner
          error={error}
          fields={['url', 'phoneNumberId', 'deadlineMs', 'fallbackAction', 'fallbackAgentId', 'fallbackForwardTo']}
        />
        <TextField id="de-url" label="URL" field="url" type="url" error={error} value={url} onValue={setUrl} required />
        <label for="de-number">For</label>
        <select
          id="de-number"
          value={numberId}
          onChange={(ev) => setNumberId(ev.currentTarget.value)}
          aria-describedby="de-number-error"
        >
          <option value="">Every number without its own</option>
          {props.numbers.map((n) => (
            <option key={n.id} value={n.id}>
              {n.label}
            </option>
          ))}
        </select>
        <FieldError id="de-number-error" error={error} field="phoneNumberId" />
        <TextField
          id="de-deadline"
          label="Deadline (ms, 100 to 5000)"
          field="deadlineMs"
          inputMode="numeric"
          error={error}
          value={deadline}
          onValue={setDeadline}
        />
        <label class="check">
          <input type="checkbox" checked={hedge} onChange={(ev) => setHedge(ev.currentTarget.checked)} /> Hedge: ask
          again when the first request is slower than usual
        </label>
        <label for="de-action">Fallback</label>
        <select
          id="de-action"
          value={action}
          onChange={(ev) => setAction(ev.currentTarget.value)}
          aria-describedby="de-action-error"
        >
          <option value="answer">Answer with an agent</option>
          <option value="forward">Forward to a number</option>
          <option value="reject">Reject the call</option>
        </select>
        <FieldError id="de-action-error" error={error} field="fallbackAction" />
        {action === 'answer' && (
          <>
            <label for="de-agent">Fallback agent</label>
            <select
              id="de-agent"
              value={agentId}
              onChange={(ev) => setAgentId(ev.currentTarget.value)}
              aria-describedby="de-agent-error"
            >
              <option value="">The number's own agent</option>
              {props.agents.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.label}
                </option>
              ))}
            </select>
            <FieldError id="de-agent-error" error={error} field="fallbackAgentId" />
          </>
        )}
        {action === 'forward' && (
          <TextField
            id="de-forward"
            label="Forward to (E.164)"
            field="fallbackForwardTo"
            error={error}
            value={forwardTo}
            onValue={setForwardTo}
          />
        )}
        <footer class="actions">
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" class="primary">
            {e ? 'Save changes' : 'Add endpoint'}
          </button>
        </footer>
      </form>
    </Dialog>
  );
}
