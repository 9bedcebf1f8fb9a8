import type { ComponentChildren } from 'preact';
import { createContext } from 'preact';
import { useContext, useEffect, useId, useRef } from 'preact/hooks';
import type { ApiError } from './api';

// Small building blocks every screen shares: dialogs, fields with their
// errors, paging, and the company's clock.

/** A modal on the native <dialog>: focus stays inside, Escape closes it. */
export function Dialog(props: { title: string; onClose: () => void; children: ComponentChildren; wide?: boolean }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current!;
    const before = document.activeElement as HTMLElement | null;
    dialog.showModal();
    return () => before?.focus?.();
  }, []);
  return (
    <dialog ref={ref} class={props.wide ? 'wide' : undefined} aria-labelledby={titleId} onClose={props.onClose}>
      <header class="dialog-head">
        <h2 id={titleId}>{props.title}</h2>
        <button type="button" class="icon" aria-label="Close" onClick={props.onClose}>
          ×
        </button>
      </header>
      {props.children}
    </dialog>
  );
}

/** The messages of `error` for `field`, announced with the field. */
/** `exact`: the field's own messages only, not those of its items (`headers`, whose rows show their own). */
/** The words the API's messages use for a field (`headers.0.name`: `headers.name`). */
const apiLabel = (field: string) =>
  field
    .replace(/\.\d+/g, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/_/g, ' ')
    .toLowerCase();

/**
 * A field's errors under it. `as`: the field's name as the page shows it
 * ("Header 1: name"), said instead of the API's path for it.
 */
export function FieldError(props: { id: string; error: ApiError | null; field: string; exact?: boolean; as?: string }) {
  const messages = (props.exact ? props.error?.fields[props.field] : props.error?.fieldMessages(props.field)) ?? [];
  if (messages.length === 0) return null;
  const { as } = props;
  const named = as
    ? messages.map((text) =>
        text.replace(new RegExp(`^The ${apiLabel(props.field).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}( field)?`), as),
      )
    : messages;
  return (
    <p id={props.id} class="field-error" role="alert">
      {named.join(' ')}
    </p>
  );
}

/** A labelled text input with its field's errors under it (invalid and described by them when there are some). */
export function TextField(props: {
  id: string;
  label: string;
  field: string;
  error: ApiError | null;
  value: string;
  onValue: (value: string) => void;
  type?: 'text' | 'email' | 'password' | 'url';
  autocomplete?: string;
  placeholder?: string;
  maxLength?: number;
  inputMode?: 'url' | 'email' | 'text' | 'numeric';
  required?: boolean;
}) {
  const errorId = `${props.id}-error`;
  // Preact types tie an input's other attributes to its type; these four types all take text.
  const type = (props.type ?? 'text') as 'text';
  return (
    <>
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        type={type}
        autocomplete={props.autocomplete}
        placeholder={props.placeholder}
        maxLength={props.maxLength}
        inputMode={props.inputMode}
        required={props.required}
        value={props.value}
        onInput={(e) => props.onValue(e.currentTarget.value)}
        aria-invalid={props.error?.fieldMessages(props.field).length ? true : undefined}
        aria-describedby={errorId}
      />
      <FieldError id={errorId} error={props.error} field={props.field} />
    </>
  );
}

/** A success message, announced politely. */
export const Notice = (props: { text: string | null }) =>
  props.text ? (
    <p class="banner success" role="status">
      {props.text}
    </p>
  ) : null;

/** An error that belongs to no field (or to a field the form does not show). */
export function ErrorBanner(props: { error: ApiError | null; fields?: string[] }) {
  const { error } = props;
  if (!error) return null;
  const shown = props.fields ?? [];
  const elsewhere = Object.keys(error.fields).filter(
    (name) => !shown.some((field) => name === field || name.startsWith(`${field}.`)),
  );
  if (Object.keys(error.fields).length > 0 && elsewhere.length === 0) return null;
  return (
    <p class="banner error" role="alert">
      {elsewhere.length > 0 ? elsewhere.flatMap((name) => error.fields[name]).join(' ') : error.message}
    </p>
  );
}

export interface PageInfo {
  currentPage: number;
  lastPage: number;
  total: number;
  from: number | null;
  to: number | null;
}

export function Pager(props: { page: PageInfo; onPage: (page: number) => void; label: string }) {
  const { page } = props;
  return (
    <nav class="pager" aria-label={`${props.label} pages`}>
      <span>{page.total === 0 ? 'No records' : `${page.from}–${page.to} of ${page.total}`}</span>
      <button type="button" disabled={page.currentPage <= 1} onClick={() => props.onPage(page.currentPage - 1)}>
        Previous
      </button>
      <span aria-current="page">
        Page {page.currentPage} of {Math.max(page.lastPage, 1)}
      </span>
      <button
        type="button"
        disabled={page.currentPage >= page.lastPage}
        onClick={() => props.onPage(page.currentPage + 1)}
      >
        Next
      </button>
    </nav>
  );
}

export const Loading = (props: { what: string }) => (
  <p class="muted" role="status">
    Loading {props.what}…
  </p>
);

/** Times shown in the company's time zone, with its abbreviation, as the API's date strings read. */
export const ZoneContext = createContext('UTC');

function wallClock(iso: string, zone: string): string {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'short',
  }).formatToParts(new Date(iso));
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')}:${part('second')} ${part('timeZoneName')}`;
}

/** A time as text in the company's zone, e.g. "2026-11-24 02:00:21 EST" (for sentences). */
export function useTime(): (iso: string | null | undefined) => string {
  const zone = useContext(ZoneContext);
  return (iso) => (iso ? wallClock(iso, zone) : '—');
}

/** A time in the company's zone, the same instant in UTC on hover (payloads and logs are in UTC). */
export function When(props: { iso: string | null | undefined }) {
  const zone = useContext(ZoneContext);
  if (!props.iso) return <>—</>;
  return (
    <time dateTime={props.iso} title={`${wallClock(props.iso, 'UTC')} (${props.iso})`}>
      {wallClock(props.iso, zone)}
    </time>
  );
}

/** Re-runs `tick` every `ms` while `active`. */
export function useInterval(tick: () => void, ms: number, active: boolean) {
  const saved = useRef(tick);
  saved.current = tick;
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => saved.current(), ms);
    return () => clearInterval(timer);
  }, [ms, active]);
}

/** A table's header row: its columns, then an actions column named for screen readers only, when there is one. */
export function TableHead(props: { columns: string[]; actions?: boolean }) {
  return (
    <thead>
      <tr>
        {props.columns.map((column) => (
          <th scope="col" key={column}>
            {column}
          </th>
        ))}
        {props.actions && (
          <th scope="col">
            <span class="sr-only">Actions</span>
          </th>
        )}
      </tr>
    </thead>
  );
}
