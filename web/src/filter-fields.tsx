import { useState } from 'preact/hooks';
import { ApiError, gql } from './api';
import { FieldError } from './ui';
import { eventName } from './vocabulary.generated';

// A webhook's payload filters in the form: one row per filtered event type
// (among those ticked), its filter as JSON, and a button that tries it on the
// event type's example payload before saving. The service checks each filter
// against the event's data schema; its errors show by row.

export interface WebhookFilter {
  event: string;
  filter: Record<string, unknown>;
}

export interface FilterRow {
  event: string;
  text: string;
  /** What the last test said, or why the text is not a filter yet. */
  result: { ok: boolean; text: string } | null;
}

const TEST =
  'query TestFilter($event: WebhookEvent!, $filter: JSONObject!) { testWebhookFilter(event: $event, filter: $filter) { matches } }';
const STARTER = '{ "path": "", "eq": "" }';

export const filterRowsOf = (filters: WebhookFilter[] = []): FilterRow[] =>
  filters.map((f) => ({ event: f.event, text: JSON.stringify(f.filter, null, 2), result: null }));

/** The rows as the service takes them; the index of the first row whose text is not a JSON object, if any. */
export function filtersInput(rows: FilterRow[]): { filters: WebhookFilter[]; badRow: number | null } {
  const filters: WebhookFilter[] = [];
  for (const [i, row] of rows.entries()) {
    const parsed = parseFilter(row.text);
    if (!parsed) return { filters, badRow: i };
    filters.push({ event: row.event, filter: parsed });
  }
  return { filters, badRow: null };
}

function parseFilter(text: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

export function FilterFields(props: {
  rows: FilterRow[];
  onRows: (rows: FilterRow[]) => void;
  events: string[];
  error: ApiError | null;
}) {
  const { rows, onRows, events, error } = props;
  const [testing, setTesting] = useState<number | null>(null);
  const change = (i: number, patch: Partial<FilterRow>) =>
    onRows(rows.map((row, j) => (j === i ? { ...row, result: null, ...patch } : row)));
  const free = events.filter((name) => !rows.some((row) => row.event === name));

  const test = async (i: number) => {
    const row = rows[i];
    const filter = parseFilter(row.text);
    if (!filter)
      return change(i, {
        result: {
          ok: false,
          text: 'This is not a JSON object: a filter is { "path": …, "eq": … } or { "and": [ … ] }.',
        },
      });
    setTesting(i);
    try {
      const { testWebhookFilter } = await gql<{ testWebhookFilter: { matches: boolean } }>(TEST, {
        event: row.event,
        filter,
      });
      change(i, {
        result: {
          ok: true,
          text: testWebhookFilter.matches
            ? `The example ${eventName(row.event)} payload passes: it would be delivered.`
            : `The example ${eventName(row.event)} payload is turned away: it would not be delivered.`,
        },
      });
    } catch (caught) {
      const fields =
        caught instanceof ApiError
          ? Object.entries(caught.fields).map(
              ([at, messages]) => `${at === 'filter' ? '' : `${at.replace(/^filter\./, '')}: `}${messages.join(' ')}`,
            )
          : [];
      change(i, { result: { ok: false, text: fields.length ? fields.join(' ') : String((caught as Error).message) } });
    } finally {
      setTesting(null);
    }
  };

  return (
    <fieldset aria-describedby="wh-filters-error">
      <legend>Filters (deliver an event only when its data passes)</legend>
      {rows.length === 0 && <p class="hint">None: every subscribed event is delivered.</p>}
      {rows.map((row, i) => (
        <div class="filter-row" key={i}>
          <div class="row">
            <label for={`wh-filter-${i}-event`}>Filter {i + 1} event</label>
            <select
              id={`wh-filter-${i}-event`}
              value={row.event}
              onChange={(e) => change(i, { event: e.currentTarget.value })}
              aria-invalid={error?.fieldMessages(`filters.${i}.event`).length ? true : undefined}
            >
              {[row.event, ...free]
                .filter((name, j, all) => all.indexOf(name) === j)
                .map((name) => (
                  <option key={name} value={name}>
                    {eventName(name)}
                  </option>
                ))}
            </select>
            <button type="button" onClick={() => test(i)} disabled={testing === i}>
              Test against the example
            </button>
            <button
              type="button"
              onClick={() => onRows(rows.filter((_, j) => j !== i))}
              aria-label={`Remove filter ${i + 1}`}
            >
              Remove
            </button>
          </div>
          <label for={`wh-filter-${i}-text`} class="sr-only">
            Filter {i + 1} (JSON)
          </label>
          <textarea
            id={`wh-filter-${i}-text`}
            class="mono"
            rows={Math.min(12, Math.max(3, row.text.split('\n').length))}
            spellcheck={false}
            value={row.text}
            onInput={(e) => change(i, { text: e.currentTarget.value })}
            aria-invalid={
              error?.fieldMessages(`filters.${i}.filter`).length || (row.result && !row.result.ok) ? true : undefined
            }
            aria-describedby={`wh-filter-${i}-result wh-filter-${i}-error`}
          />
          <p id={`wh-filter-${i}-result`} class={row.result?.ok === false ? 'field-error' : 'hint'} role="status">
            {row.result?.text ?? ''}
          </p>
          <FieldError id={`wh-filter-${i}-error`} error={error} field={`filters.${i}`} />
        </div>
      ))}
      <button
        type="button"
        disabled={free.length === 0}
        onClick={() => onRows([...rows, { event: free[0], text: STARTER, result: null }])}
      >
        Add filter
      </button>
      <p class="hint">
        A comparison <code>{'{ "path": "call_duration", "gt": 60 }'}</code> (eq, ne, in, nin, gt, gte, lt, lte, exists)
        or a group of them with and, or, not. See the receiver's guide, Filters.
      </p>
      <FieldError id="wh-filters-error" error={error} field="filters" exact />
    </fieldset>
  );
}
