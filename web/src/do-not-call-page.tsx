import { useEffect, useState } from 'preact/hooks';
import { type ApiError, gql } from './api';
import { asApiError } from './delivery-log';
import { ErrorBanner, FieldError, Notice, type PageInfo, Pager, TableHead, When } from './ui';

// Setup > Do not call: the numbers the company's campaigns must never dial (docs/dialer.md). Search them, add many at once
// (one per line), take one off; numbers whose owners texted STOP are shown with that source.

interface Entry {
  phoneNumber: string;
  source: string;
  note: string | null;
  createdAt: string;
}

const LIST = `query DoNotCall($search: String, $page: Int) {
  doNotCallList(search: $search, page: $page, perPage: 25) {
    records { phoneNumber source note createdAt } pagination { currentPage lastPage total from to } } }`;
const ADD = `mutation AddToDoNotCall($phoneNumbers: [String!]!, $note: String) {
  addToDoNotCall(phoneNumbers: $phoneNumbers, note: $note, source: page) { added alreadyListed } }`;
const REMOVE = 'mutation RemoveFromDoNotCall($phoneNumber: String!) { removeFromDoNotCall(phoneNumber: $phoneNumber) }';
const SOURCES: Record<string, string> = { api: 'API', page: 'This page', sms_stop: 'Texted STOP' };

export function DoNotCallPage(props: { canManage: boolean }) {
  const [entries, setEntries] = useState<Entry[] | null>(null);
  const [page, setPage] = useState<PageInfo | null>(null);
  const [search, setSearch] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const load = async (at = 1) => {
    try {
      const data = await gql<{ doNotCallList: { records: Entry[]; pagination: PageInfo } }>(LIST, {
        search: search || null,
        page: at,
      });
      setEntries(data.doNotCallList.records);
      setPage(data.doNotCallList.pagination);
      setError(null);
    } catch (caught) {
      setError(asApiError(caught));
    }
  };
  useEffect(() => void load(), [search]);
  const remove = async (entry: Entry) => {
    try {
      await gql(REMOVE, { phoneNumber: entry.phoneNumber });
      setNotice(`${entry.phoneNumber} was taken off the list.`);
      void load(page?.currentPage ?? 1);
    } catch (caught) {
      setError(asApiError(caught));
    }
  };
  return (
    <section aria-labelledby="dnc-title">
      <h1 id="dnc-title">Do not call</h1>
      <p class="hint">
        Numbers your campaigns must never dial. A number whose owner texts STOP to one of your numbers is added here and
        gets no more messages from you, until they text START.
      </p>
      <Notice text={notice} />
      <ErrorBanner error={error} fields={['phoneNumbers', 'note']} />
      {props.canManage && (
        <AddNumbers
          onAdded={(text) => {
            setNotice(text);
            void load();
          }}
        />
      )}
      <label for="dnc-search">Search numbers</label>
      <input
        id="dnc-search"
        type="search"
        inputMode="tel"
        value={search}
        onInput={(e) => setSearch(e.currentTarget.value)}
      />
      {entries && entries.length === 0 && (
        <p class="empty">{search ? 'No number matches.' : 'No number is on the list.'}</p>
      )}
      {entries && entries.length > 0 && (
        <table>
          <caption class="sr-only">Numbers on the do-not-call list ({page?.total})</caption>
          <TableHead columns={['Number', 'Added by', 'Note', 'Added']} actions={props.canManage} />
          <tbody>
            {entries.map((e) => (
              <tr key={e.phoneNumber}>
                <td data-label="Number" class="mono">
                  {e.phoneNumber}
                </td>
                <td data-label="Added by">{SOURCES[e.source] ?? e.source}</td>
                <td data-label="Note">{e.note ?? '—'}</td>
                <td data-label="Added">
                  <When iso={e.createdAt} />
                </td>
                {props.canManage && (
                  <td data-label="Actions">
                    <button
                      type="button"
                      onClick={() => remove(e)}
                      aria-label={`Remove ${e.phoneNumber} from the list`}
                    >
                      Remove
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {page && page.lastPage > 1 && <Pager page={page} onPage={(at) => void load(at)} label="Do-not-call pages" />}
    </section>
  );
}

function AddNumbers(props: { onAdded: (notice: string) => void }) {
  const [numbers, setNumbers] = useState('');
  const [note, setNote] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const add = async (event: Event) => {
    event.preventDefault();
    const phoneNumbers = numbers
      .split(/[\s,;]+/)
      .map((n) => n.trim())
      .filter(Boolean);
    try {
      const { addToDoNotCall: r } = await gql<{ addToDoNotCall: { added: number; alreadyListed: number } }>(ADD, {
        phoneNumbers,
        note: note || null,
      });
      setNumbers('');
      setNote('');
      setError(null);
      props.onAdded(
        `${r.added} ${r.added === 1 ? 'number' : 'numbers'} added${r.alreadyListed > 0 ? `, ${r.alreadyListed} already on the list` : ''}.`,
      );
    } catch (caught) {
      setError(asApiError(caught));
    }
  };
  return (
    <form onSubmit={add} noValidate class="stack">
      <ErrorBanner error={error} fields={['phoneNumbers', 'note']} />
      <label for="dnc-numbers">Numbers to add (E.164, one per line)</label>
      <textarea
        id="dnc-numbers"
        rows={3}
        value={numbers}
        placeholder="+14155550100"
        onInput={(e) => setNumbers(e.currentTarget.value)}
        aria-invalid={error?.fieldMessages('phoneNumbers').length ? true : undefined}
        aria-describedby="dnc-numbers-error"
      />
      <FieldError id="dnc-numbers-error" error={error} field="phoneNumbers" />
      <label for="dnc-note">Note (optional)</label>
      <input id="dnc-note" value={note} maxLength={255} onInput={(e) => setNote(e.currentTarget.value)} />
      <FieldError id="dnc-note-error" error={error} field="note" />
      <button type="submit">Add to the list</button>
    </form>
  );
}
