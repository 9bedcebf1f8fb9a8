import type { ApiError } from './api';
import { FieldError } from './ui';

// A webhook's custom headers in the form: a row per header (name, value,
// secret), at most ten. A secret header saved before shows no value; left
// empty, it keeps the value it has.

export interface WebhookHeader {
  name: string;
  value: string | null;
  secret: boolean;
}

/** A row of the editor: `saved` when it is a secret header the service already holds a value for. */
export interface HeaderRow {
  name: string;
  value: string;
  secret: boolean;
  saved: boolean;
}

export const HEADERS_MAX = 10;

export const rowsOf = (headers: WebhookHeader[] = []): HeaderRow[] =>
  headers.map((h) => ({ name: h.name, value: h.value ?? '', secret: h.secret, saved: h.secret }));

/** The input the service takes: a saved secret left empty is sent without a value, so it keeps its own. */
export const headersInput = (rows: HeaderRow[]) =>
  rows.map((row) => ({
    name: row.name,
    secret: row.secret,
    ...(row.secret && row.saved && row.value === '' ? {} : { value: row.value }),
  }));

export function HeaderFields(props: {
  rows: HeaderRow[];
  onRows: (rows: HeaderRow[]) => void;
  error: ApiError | null;
}) {
  const { rows, onRows, error } = props;
  const change = (i: number, patch: Partial<HeaderRow>) =>
    onRows(rows.map((row, j) => (j === i ? { ...row, ...patch } : row)));
  /** The value's input, plain or masked for a secret. */
  const valueField = (i: number) => ({
    'aria-label': `Header ${i + 1} value`,
    placeholder: rows[i].saved ? 'Unchanged' : 'Value',
    value: rows[i].value,
    onInput: (e: { currentTarget: HTMLInputElement }) => change(i, { value: e.currentTarget.value }),
    'aria-invalid': error?.fieldMessages(`headers.${i}.value`).length ? true : undefined,
  });
  return (
    <fieldset aria-describedby="wh-headers-error">
      <legend>Custom headers (sent on every attempt)</legend>
      {rows.length === 0 && <p class="hint">None. Add one for a receiver behind a gateway that wants its own key.</p>}
      {rows.map((row, i) => (
        <div class="row header-row" key={i}>
          <input
            aria-label={`Header ${i + 1} name`}
            placeholder="X-Api-Key"
            value={row.name}
            onInput={(e) => change(i, { name: e.currentTarget.value })}
            aria-invalid={error?.fieldMessages(`headers.${i}.name`).length ? true : undefined}
          />
          {row.secret ? <input type="password" autocomplete="off" {...valueField(i)} /> : <input {...valueField(i)} />}
          <label class="check">
            <input
              type="checkbox"
              checked={row.secret}
              onChange={(e) => change(i, { secret: e.currentTarget.checked, saved: false })}
            />
            Secret
          </label>
          <button
            type="button"
            onClick={() => onRows(rows.filter((_, j) => j !== i))}
            aria-label={`Remove header ${i + 1}`}
          >
            Remove
          </button>
          <FieldError
            id={`wh-header-${i}-name-error`}
            error={error}
            field={`headers.${i}.name`}
            as={`Header ${i + 1}: name`}
          />
          <FieldError
            id={`wh-header-${i}-value-error`}
            error={error}
            field={`headers.${i}.value`}
            as={`Header ${i + 1}: value`}
          />
        </div>
      ))}
      <button
        type="button"
        disabled={rows.length >= HEADERS_MAX}
        onClick={() => onRows([...rows, { name: '', value: '', secret: false, saved: false }])}
      >
        Add header
      </button>
      <FieldError id="wh-headers-error" error={error} field="headers" exact />
    </fieldset>
  );
}
