import { useEffect, useState } from 'preact/hooks';
import { type ApiError, gql } from './api';
import { asApiError } from './delivery-log';
import { ErrorBanner, Notice, type PageInfo, Pager, TableHead, useInterval, When } from './ui';

// Dialer > Campaigns (docs/dialer.md): the company's campaigns, and one campaign's page: its controls (start, schedule,
// pause, resume, cancel), a progress bar and its leads by state, refreshed every two seconds while it dials, its leads
// (filtered by state) and a CSV file of leads to add.

interface Campaign {
  id: number;
  name: string;
  status: string;
  leads: number;
  startedAt: string | null;
  startsAt: string | null;
  completedAt: string | null;
  dialing: { concurrency: number; hoursStart: string; hoursEnd: string; maxAttempts: number };
}

interface Lead {
  id: number;
  phoneNumber: string | null;
  state: string | null;
  attempts: number;
  lastOutcome: string | null;
  nextAttemptAt: string | null;
}

type Progress = Record<string, number>;

const FIELDS =
  'id name status leads startedAt startsAt completedAt dialing { concurrency hoursStart hoursEnd maxAttempts }';
const LIST = `query Campaigns($page: Int) { campaigns(page: $page, perPage: 25) {
  records { ${FIELDS} } pagination { currentPage lastPage total from to } } }`;
const ONE = `query Campaign($id: ID!) { campaign(id: $id) { ${FIELDS} }
  campaignProgress(id: $id) { total pending dialing waiting answered noAnswer busy voicemail failed doNotCall
    outsideHours canceled skipped } }`;
const LEADS = `query Leads($id: ID!, $state: LeadState, $page: Int) {
  leads(campaignId: $id, state: $state, page: $page, perPage: 25) {
    records { id phoneNumber state attempts lastOutcome nextAttemptAt } pagination { currentPage lastPage total from to } } }`;
const CONTROL: Record<string, string> = {
  start: 'mutation ($id: ID!) { startCampaign(id: $id) { id } }',
  pause: 'mutation ($id: ID!) { pauseCampaign(id: $id) { id } }',
  resume: 'mutation ($id: ID!) { resumeCampaign(id: $id) { id } }',
  cancel: 'mutation ($id: ID!) { cancelCampaign(id: $id) { id } }',
};
const SCHEDULE = 'mutation ($id: ID!, $at: String!) { scheduleCampaign(id: $id, startAt: $at) { id } }';
const IMPORT = `mutation ($id: ID!, $csv: String!) { importCampaignLeads(campaignId: $id, csv: $csv, onError: skip) {
  added duplicates rejected errors { line column message } } }`;

/** Each lead state in words, in the order the progress shows them (the API's values as keys). */
const STATES: Array<[key: string, field: string, label: string]> = [
  ['answered', 'answered', 'Answered'],
  ['voicemail', 'voicemail', 'Voicemail'],
  ['no_answer', 'noAnswer', 'No answer'],
  ['busy', 'busy', 'Busy'],
  ['failed', 'failed', 'Failed'],
  ['do_not_call', 'doNotCall', 'Do not call'],
  ['outside_hours', 'outsideHours', 'Outside hours'],
  ['canceled', 'canceled', 'Canceled'],
  ['skipped', 'skipped', 'Skipped before dialing'],
  ['dialing', 'dialing', 'Dialing'],
  ['waiting', 'waiting', 'Waiting to retry'],
  ['pending', 'pending', 'Not dialed yet'],
];
const STATE_LABEL = Object.fromEntries(STATES.map(([key, , label]) => [key, label]));
/** What each status allows. */
const ACTIONS: Record<string, string[]> = {
  draft: ['start', 'cancel'],
  scheduled: ['start', 'cancel'],
  running: ['pause', 'cancel'],
  paused: ['resume', 'cancel'],
};
const ACTION_LABEL: Record<string, string> = { start: 'Start', pause: 'Pause', resume: 'Resume', cancel: 'Cancel' };
const DONE: Record<string, string> = { start: 'started', pause: 'paused', resume: 'resumed', cancel: 'canceled' };

export function CampaignsPage(props: { id: string | null; canManage: boolean }) {
  return props.id ? <CampaignDetail id={props.id} canManage={props.canManage} /> : <CampaignList />;
}

function CampaignList() {
  const [campaigns, setCampaigns] = useState<Campaign[] | null>(null);
  const [page, setPage] = useState<PageInfo | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const load = async (at = 1) => {
    try {
      const data = await gql<{ campaigns: { records: Campaign[]; pagination: PageInfo } }>(LIST, { page: at });
      setCampaigns(data.campaigns.records);
      setPage(data.campaigns.pagination);
    } catch (caught) {
      setError(asApiError(caught));
    }
  };
  useEffect(() => void load(), []);
  return (
    <section aria-labelledby="campaigns-title">
      <h1 id="campaigns-title">Campaigns</h1>
      <ErrorBanner error={error} />
      {campaigns && campaigns.length === 0 && <p class="empty">No campaign yet.</p>}
      {campaigns && campaigns.length > 0 && (
        <table>
          <caption class="sr-only">Campaigns ({page?.total})</caption>
          <TableHead columns={['Campaign', 'Status', 'Leads', 'Started']} />
          <tbody>
            {campaigns.map((c) => (
              <tr key={c.id}>
                <td data-label="Campaign">
                  <a href={`#/campaigns/${c.id}`}>{c.name}</a>
                </td>
                <td data-label="Status">{c.status}</td>
                <td data-label="Leads">{c.leads}</td>
                <td data-label="Started">
                  <When iso={c.startedAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {page && page.lastPage > 1 && <Pager page={page} onPage={(at) => void load(at)} label="Campaign" />}
    </section>
  );
}

function CampaignDetail(props: { id: string; canManage: boolean }) {
  const [campaign, setCampaign] = useState<Campaign | null>(null);
  const [progress, setProgress] = useState<Progress | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [refresh, setRefresh] = useState(0);
  const load = async () => {
    try {
      const data = await gql<{ campaign: Campaign; campaignProgress: Progress }>(ONE, { id: props.id });
      setCampaign(data.campaign);
      setProgress(data.campaignProgress);
      setRefresh((n) => n + 1);
    } catch (caught) {
      setError(asApiError(caught));
    }
  };
  useEffect(() => void load(), [props.id]);
  // Live while it dials: the bar and the counts move as calls end.
  useInterval(() => void load(), 2000, campaign?.status === 'running' || campaign?.status === 'paused');
  const act = async (action: string) => {
    try {
      await gql(CONTROL[action], { id: props.id });
      setNotice(`The campaign was ${DONE[action]}.`);
      setError(null);
      await load();
    } catch (caught) {
      setError(asApiError(caught));
    }
  };
  if (!campaign || !progress) return <ErrorBanner error={error} />;
  const final = progress.total - progress.pending - progress.dialing - progress.waiting;
  return (
    <section aria-labelledby="campaign-title">
      <p>
        <a href="#/campaigns">Campaigns</a>
      </p>
      <h1 id="campaign-title">{campaign.name}</h1>
      <Notice text={notice} />
      <ErrorBanner error={error} />
      <p>
        Status: <strong data-testid="campaign-status">{campaign.status}</strong>. Up to {campaign.dialing.concurrency}{' '}
        calls at once, from {campaign.dialing.hoursStart} to {campaign.dialing.hoursEnd} in each lead's own time, up to{' '}
        {campaign.dialing.maxAttempts} attempts a lead.
      </p>
      {campaign.status === 'scheduled' && (
        <p>
          Starts <When iso={campaign.startsAt} />.
        </p>
      )}
      {props.canManage && (
        <div class="actions">
          {(ACTIONS[campaign.status] ?? []).map((action) => (
            <button type="button" key={action} onClick={() => act(action)}>
              {ACTION_LABEL[action]}
            </button>
          ))}
        </div>
      )}
      {props.canManage && (campaign.status === 'draft' || campaign.status === 'scheduled') && (
        <ScheduleForm
          id={props.id}
          onScheduled={(text) => (setNotice(text), setError(null), void load())}
          onError={setError}
        />
      )}
      <h2>Progress</h2>
      <label for="campaign-progress">
        {final} of {progress.total} leads done
      </label>
      <progress id="campaign-progress" max={Math.max(progress.total, 1)} value={final} />
      <dl class="counts">
        {STATES.map(([key, field, label]) => (
          <div key={key}>
            <dt>{label}</dt>
            <dd data-state={key}>{progress[field]}</dd>
          </div>
        ))}
      </dl>
      {props.canManage && campaign.status !== 'completed' && campaign.status !== 'canceled' && (
        <ImportLeads id={props.id} onImported={(text) => (setNotice(text), void load())} />
      )}
      <LeadTable id={props.id} refresh={refresh} />
    </section>
  );
}

/** A start at a time of the viewer's clock (datetime-local), sent with its offset. */
function ScheduleForm(props: { id: string; onScheduled: (text: string) => void; onError: (error: ApiError) => void }) {
  const [at, setAt] = useState('');
  const submit = async (event: Event) => {
    event.preventDefault();
    const when = new Date(at);
    try {
      await gql(SCHEDULE, { id: props.id, at: Number.isNaN(when.getTime()) ? at : when.toISOString() });
      props.onScheduled(`The campaign will start ${when.toLocaleString()}.`);
    } catch (caught) {
      props.onError(asApiError(caught));
    }
  };
  return (
    <form onSubmit={submit}>
      <label for="campaign-start-at">Start at</label>
      <input
        id="campaign-start-at"
        type="datetime-local"
        value={at}
        onInput={(e) => setAt(e.currentTarget.value)}
        required
      />
      <button type="submit">Schedule</button>
    </form>
  );
}

function LeadTable(props: { id: string; refresh: number }) {
  const [leads, setLeads] = useState<Lead[] | null>(null);
  const [page, setPage] = useState<PageInfo | null>(null);
  const [state, setState] = useState('');
  const [at, setAt] = useState(1);
  const [error, setError] = useState<ApiError | null>(null);
  useEffect(() => {
    gql<{ leads: { records: Lead[]; pagination: PageInfo } }>(LEADS, { id: props.id, state: state || null, page: at })
      .then((data) => {
        setLeads(data.leads.records);
        setPage(data.leads.pagination);
      })
      .catch((caught) => setError(asApiError(caught)));
  }, [props.id, state, at, props.refresh]);
  return (
    <>
      <h2>Leads</h2>
      <ErrorBanner error={error} />
      <label for="lead-state">Show</label>
      <select
        id="lead-state"
        value={state}
        onChange={(e) => {
          setState(e.currentTarget.value);
          setAt(1);
        }}
      >
        <option value="">Every lead</option>
        {STATES.map(([key, , label]) => (
          <option key={key} value={key}>
            {label}
          </option>
        ))}
      </select>
      {leads && leads.length === 0 && <p class="empty">No lead here.</p>}
      {leads && leads.length > 0 && (
        <table>
          <caption class="sr-only">Leads ({page?.total})</caption>
          <TableHead columns={['Number', 'State', 'Attempts', 'Last outcome', 'Next attempt']} />
          <tbody>
            {leads.map((lead) => (
              <tr key={lead.id}>
                <td data-label="Number" class="mono">
                  {lead.phoneNumber}
                </td>
                <td data-label="State">{STATE_LABEL[lead.state ?? ''] ?? lead.state}</td>
                <td data-label="Attempts">{lead.attempts}</td>
                <td data-label="Last outcome">{lead.lastOutcome ? STATE_LABEL[lead.lastOutcome] : '—'}</td>
                <td data-label="Next attempt">
                  <When iso={lead.state === 'pending' || lead.state === 'waiting' ? lead.nextAttemptAt : null} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {page && page.lastPage > 1 && <Pager page={page} onPage={setAt} label="Lead" />}
    </>
  );
}

function ImportLeads(props: { id: string; onImported: (notice: string) => void }) {
  const [error, setError] = useState<ApiError | null>(null);
  const [rejected, setRejected] = useState<Array<{ line: number; column: string | null; message: string }>>([]);
  const upload = async (event: Event) => {
    const file = (event.currentTarget as HTMLInputElement).files?.[0];
    if (!file) return;
    try {
      const { importCampaignLeads: r } = await gql<{
        importCampaignLeads: {
          added: number;
          duplicates: number;
          rejected: number;
          errors: Array<{ line: number; column: string | null; message: string }>;
        };
      }>(IMPORT, { id: props.id, csv: await file.text() });
      setError(null);
      setRejected(r.errors);
      props.onImported(
        `${r.added} ${r.added === 1 ? 'lead' : 'leads'} added from ${file.name}` +
          `${r.duplicates > 0 ? `, ${r.duplicates} already in the campaign` : ''}` +
          `${r.rejected > 0 ? `, ${r.rejected} refused (below)` : ''}.`,
      );
    } catch (caught) {
      setError(asApiError(caught));
    }
  };
  return (
    <div class="stack">
      <label for="lead-file">Add leads from a CSV file (phone_number, then any other columns)</label>
      <input id="lead-file" type="file" accept=".csv,text/csv" onChange={upload} />
      <ErrorBanner error={error} />
      {rejected.length > 0 && (
        <ul class="banner error" aria-label="Rows refused">
          {rejected.slice(0, 50).map((row) => (
            <li key={`${row.line}:${row.column}`}>{row.message}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
