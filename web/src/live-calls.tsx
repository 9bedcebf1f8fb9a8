import { createClient, type Client } from 'graphql-ws';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, gql, session } from './api';
import { asApiError } from './delivery-log';
import { ErrorBanner, TableHead, When } from './ui';

// Calls > Live calls: the company's calls in progress (read again every few
// seconds) and, for the one chosen, its transcript as it grows, over the
// callTranscript subscription (graphql-ws on /graphql). Read-only.

interface LiveCall {
  id: number;
  status: string;
  direction: string;
  fromNumber: string;
  toNumber: string;
  startedAt: string;
  agentName: string | null;
  decision: {
    decidedBy: string;
    action: string;
    forwardTo: string | null;
    fallbackReason: string | null;
    reason: string | null;
    latencyMs: number | null;
  } | null;
}

interface Turn {
  sequence: number;
  speaker: string;
  text: string;
}

const LIVE_CALLS =
  'query LiveCalls { liveCalls { id status direction fromNumber toNumber startedAt agentName ' +
  'decision { decidedBy action forwardTo fallbackReason reason latencyMs } } }';

/** How the call was routed, in words: who decided, what, and how long it took. */
function routed(decision: LiveCall['decision']): string {
  if (!decision) return '—';
  const who =
    decision.decidedBy === 'fallback' && decision.fallbackReason
      ? `Fallback (${decision.fallbackReason.replace(/_/g, ' ')})`
      : ({ endpoint: 'Your endpoint', fallback: 'Fallback', number: "The number's agent" }[decision.decidedBy] ??
        decision.decidedBy);
  const what = decision.action === 'forward' ? `forward to ${decision.forwardTo}` : decision.action;
  return `${who}: ${what}${decision.latencyMs === null ? '' : ` (${decision.latencyMs} ms)`}`;
}
const TURNS = 'query Turns($id: ID!) { callTranscriptTurns(callId: $id) { sequence speaker text } }';
const SUBSCRIBE =
  'subscription Transcript($id: ID!) { callTranscript(callId: $id, after: -1) { sequence speaker text } }';
const REFRESH_MS = 3000;

let socket: Client | undefined;
/** One graphql-ws connection for the tab, with its token. */
const live = () =>
  (socket ??= createClient({
    url: `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`,
    connectionParams: () => ({ authorization: `Bearer ${session.token}` }),
    lazy: true,
  }));

export function LiveCallsPage() {
  const [calls, setCalls] = useState<LiveCall[] | null>(null);
  const [chosen, setChosen] = useState<number | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  useEffect(() => {
    let stopped = false;
    const read = () =>
      gql<{ liveCalls: LiveCall[] }>(LIVE_CALLS).then(
        (data) => !stopped && (setCalls(data.liveCalls), setError(null)),
        (caught) => !stopped && setError(asApiError(caught)),
      );
    void read();
    const timer = setInterval(read, REFRESH_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, []);
  return (
    <section aria-labelledby="live-title">
      <h1 id="live-title">Live calls</h1>
      <ErrorBanner error={error} />
      {calls && calls.length === 0 && (
        <p class="empty">No call is in progress. This list follows new calls by itself.</p>
      )}
      {calls && calls.length > 0 && (
        <table>
          <caption class="sr-only">Calls in progress ({calls.length})</caption>
          <TableHead columns={['Started', 'Direction', 'From', 'To', 'Agent', 'Routed', 'Status', 'Transcript']} />
          <tbody>
            {calls.map((call) => (
              <tr key={call.id} aria-selected={chosen === call.id}>
                <td data-label="Started">
                  <When iso={call.startedAt} />
                </td>
                <td data-label="Direction">{call.direction}</td>
                <td data-label="From" class="mono">
                  {call.fromNumber}
                </td>
                <td data-label="To" class="mono">
                  {call.toNumber}
                </td>
                <td data-label="Agent">{call.agentName ?? '—'}</td>
                <td data-label="Routed" title={call.decision?.reason ?? undefined}>
                  {routed(call.decision)}
                </td>
                <td data-label="Status">{call.status.replace(/_/g, ' ')}</td>
                <td data-label="Transcript">
                  <button
                    type="button"
                    onClick={() => setChosen(call.id)}
                    aria-label={`Follow the transcript of call ${call.id}`}
                  >
                    Follow
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {chosen !== null && <Transcript callId={chosen} key={chosen} />}
    </section>
  );
}

function Transcript(props: { callId: number }) {
  const [turns, setTurns] = useState<Turn[]>([]);
  const [error, setError] = useState<ApiError | null>(null);
  useEffect(() => {
    const add = (incoming: Turn[]) =>
      setTurns((known) => {
        const bySequence = new Map([...known, ...incoming].map((t) => [t.sequence, t]));
        return [...bySequence.values()].sort((a, b) => a.sequence - b.sequence);
      });
    // The subscription sends the turns so far once it is in place, then each new one: nothing said meanwhile is missed.
    // The read beside it shows them sooner.
    const stop = live().subscribe<{ callTranscript: Turn }>(
      { query: SUBSCRIBE, variables: { id: String(props.callId) } },
      {
        next: (message) => message.data && add([message.data.callTranscript]),
        error: () => setError(new ApiError('The live transcript stopped. Follow the call again to resume.', 'LIVE')),
        complete: () => undefined,
      },
    );
    gql<{ callTranscriptTurns: Turn[] }>(TURNS, { id: String(props.callId) }).then(
      (data) => add(data.callTranscriptTurns),
      (caught) => setError(asApiError(caught)),
    );
    return stop;
  }, [props.callId]);
  return (
    <section class="panel" aria-labelledby="transcript-title">
      <h2 id="transcript-title">Transcript of call {props.callId}</h2>
      <ErrorBanner error={error} />
      {turns.length === 0 && <p class="empty">Nothing said yet.</p>}
      <ol class="transcript" aria-live="polite">
        {turns.map((turn) => (
          <li key={turn.sequence}>
            <strong>{{ agent: 'Agent', caller: 'Caller', tool: 'Tool' }[turn.speaker] ?? turn.speaker}:</strong>{' '}
            {turn.text}
          </li>
        ))}
      </ol>
    </section>
  );
}
