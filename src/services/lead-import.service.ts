import { parse } from 'csv-parse';
import { Readable } from 'node:stream';
import type { RequestContext } from '../context/request-context.js';
import type { Campaign } from '../entities/campaign.entity.js';
import type { LeadVariables } from '../entities/lead.entity.js';
import { BOUNDS, CAMPAIGN_LIMITS } from '../kernel/bounds.js';
import { NotFoundError, ValidationError } from '../kernel/errors.js';
import type { IdCodec } from '../kernel/ids.js';
import { phoneTimeZones } from '../kernel/phone-time-zones.js';
import { E164, EMAIL } from '../kernel/validation.js';
import type { LEAD_ERROR_MODES } from '../kernel/vocabulary.js';
import { campaignRepository } from '../repositories/campaign.repository.js';
import { leadImportRepository, type NewLead } from '../repositories/lead-import.repository.js';
import { contactFields } from './contact.service.js';

// A campaign's leads given in bulk (docs/dialer.md): as JSON (up to 1,000 a request) or as a CSV upload (a header
// row, then a lead a row), up to 100,000 a campaign. Each row is checked on its own; a bad one is reported with where
// it is (its place in the list, or its line and column), its value and what is accepted, and then either nothing is
// kept (`reject`, the default) or the good rows are (`skip`). A lead is in a campaign once per key: given again, it
// is a duplicate, not a second lead. Each lead added is a lead.generated.

export type LeadErrorMode = (typeof LEAD_ERROR_MODES)[number];

/** A lead as a JSON request gives it. */
export interface LeadInput {
  phoneNumber?: string | null;
  key?: string | null;
  firstName?: string | null;
  lastName?: string | null;
  email?: string | null;
  timeZone?: string | null;
  source?: string | null;
  variables?: Record<string, unknown> | null;
}

/** A bad row: where (its index in a JSON list, or its line in a CSV file), the field or column, its value, and why. */
export interface LeadRowError {
  index: number | null;
  line: number | null;
  column: string | null;
  value: string | null;
  message: string;
}

export interface LeadImportRecord {
  campaignId: number;
  /** Leads added by this request. */
  added: number;
  /** Good rows whose key the campaign had already (or an earlier row of this request had). */
  duplicates: number;
  /** Bad rows (each in `errors`). */
  rejected: number;
  /** The campaign's leads now. */
  leads: number;
  errors: LeadRowError[];
}

/** A row before its checks: where it is, and its fields by the names of the JSON body. */
interface Row {
  index: number | null;
  line: number | null;
  fields: LeadInput;
  /** A CSV row's extra columns: its variables, as text. */
  extra?: Record<string, string>;
}

/** The CSV columns that are a lead's own fields; every other column is a variable. */
const CSV_FIELDS: Record<string, keyof LeadInput> = {
  phone_number: 'phoneNumber',
  key: 'key',
  first_name: 'firstName',
  last_name: 'lastName',
  email: 'email',
  time_zone: 'timeZone',
  source: 'source',
};
const FIELD_NAMES = Object.fromEntries(Object.entries(CSV_FIELDS).map(([column, field]) => [field, column]));

/** A variable's name: a letter or _, then letters, digits or _ (as a prompt's placeholder writes it). */
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/** Leads written (and their events recorded) a batch at a time. */
const BATCH = 1000;

const isTimeZone = (zone: string) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
};

const written = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

export class LeadImportService {
  constructor(
    private readonly ids: IdCodec,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Leads given as JSON: 1 to 1,000. */
  async add(
    ctx: RequestContext,
    rawCampaignId: string,
    leads: LeadInput[],
    onError: LeadErrorMode = 'reject',
  ): Promise<LeadImportRecord> {
    const { maxItems } = BOUNDS.campaign.leads;
    if (leads.length === 0 || leads.length > maxItems)
      throw ValidationError.field('leads', `The leads field must hold 1 to ${maxItems} leads (got ${leads.length}).`);
    const campaign = await this.campaign(ctx, rawCampaignId);
    const rows = leads.map((fields, index): Row => ({ index, line: null, fields }));
    return this.admit(ctx, campaign, rows, onError, 'leads');
  }

  /** Leads given as a CSV file: a header row naming the columns (phone_number at least), then a lead a row. */
  async importCsv(
    ctx: RequestContext,
    rawCampaignId: string,
    csv: string,
    onError: LeadErrorMode = 'reject',
  ): Promise<LeadImportRecord> {
    const campaign = await this.campaign(ctx, rawCampaignId);
    return this.admit(ctx, campaign, csvRows(csv), onError, 'csv');
  }

  private async campaign(ctx: RequestContext, rawId: string): Promise<Campaign> {
    const id = this.ids.decode(rawId, 'campaign');
    // Locked: two imports into one campaign take their turns, so neither passes the campaign's bound.
    const campaign = id === undefined ? null : await campaignRepository.locked(ctx, id);
    if (!campaign) throw new NotFoundError('Campaign');
    if (campaign.status === 'completed')
      throw ValidationError.field('campaignId', 'The campaign is completed: it takes no more leads.');
    return campaign;
  }

  /** Checks each row, writes the good ones a batch at a time (none once a row is bad and the mode is reject). */
  private async admit(
    ctx: RequestContext,
    campaign: Campaign,
    rows: Iterable<Row | LeadRowError> | AsyncIterable<Row | LeadRowError>,
    onError: LeadErrorMode,
    field: 'leads' | 'csv',
  ): Promise<LeadImportRecord> {
    const most = CAMPAIGN_LIMITS.leadsPerCampaign;
    const had = campaign.leads ?? 0;
    const errors: LeadRowError[] = [];
    let [added, duplicates, seen] = [0, 0, 0];
    let batch: NewLead[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      const made = await leadImportRepository.add(ctx, campaign, batch, this.clock());
      added += made.length;
      duplicates += batch.length - made.length;
      batch = [];
      if (had + added > most)
        throw ValidationError.field(
          field,
          `A campaign holds at most ${most.toLocaleString('en-US')} leads; it has ${had.toLocaleString('en-US')}, ` +
            `and this ${field === 'csv' ? 'file' : 'request'} would add more than ${(most - had).toLocaleString('en-US')}.`,
        );
      await ctx.events.recordMany(
        'lead.generated',
        made.map(({ id, source, contact }) => ({
          data: { lead_id: String(id), campaign_id: String(campaign.id), pipeline_stage_id: null, source },
          contact: contactFields(contact),
        })),
      );
    };
    for await (const row of rows) {
      if (!('fields' in row)) {
        errors.push(row);
        continue;
      }
      if (++seen > most)
        throw ValidationError.field(
          field,
          `One ${field === 'csv' ? 'file' : 'request'} gives at most ${most.toLocaleString('en-US')} leads` +
            (row.line === null ? '.' : `; line ${row.line} is past them.`),
        );
      const checked = checkRow(row);
      if (Array.isArray(checked)) errors.push(...checked);
      else if (errors.length === 0 || onError === 'skip') {
        batch.push(checked);
        if (batch.length >= BATCH) await flush();
      }
    }
    // In the order of the rows (a broken CSV row is known as soon as the parser reads it, ahead of the rows before).
    errors.sort((a, b) => (a.line ?? a.index ?? 0) - (b.line ?? b.index ?? 0));
    if (errors.length > 0 && onError === 'reject') throw rowsRefused(errors, field);
    if (seen === 0 && errors.length === 0)
      throw ValidationError.field(
        'csv',
        'The file holds no leads: a header row naming the columns, then a lead a row.',
      );
    await flush();
    const rejected = new Set(errors.map((e) => `${e.index}:${e.line}`)).size;
    return { campaignId: campaign.id, added, duplicates, rejected, leads: had + added, errors };
  }
}

/** The 422 of a reject: each bad row's errors under its place (`leads.3.phone_number`, `csv.4.phone_number`). */
function rowsRefused(errors: LeadRowError[], field: 'leads' | 'csv'): ValidationError {
  const fieldErrors: Record<string, string[]> = {};
  for (const error of errors) {
    const place = `${field}.${error.index ?? error.line}${error.column ? `.${error.column}` : ''}`;
    (fieldErrors[place] ??= []).push(error.message);
  }
  return new ValidationError(fieldErrors);
}

/** A row's lead, or what is wrong with it (every field's problem, each with its value). */
function checkRow(row: Row): NewLead | LeadRowError[] {
  const errors: LeadRowError[] = [];
  const at = row.line === null ? `Lead ${row.index}` : `Line ${row.line}`;
  const bad = (name: keyof LeadInput | string, value: unknown, why: string) =>
    errors.push({
      index: row.index,
      line: row.line,
      column: FIELD_NAMES[name] ?? name,
      value: value === undefined || value === null ? null : written(value),
      message: `${at}, ${FIELD_NAMES[name] ?? name}: ${why}`,
    });
  const text = (name: keyof LeadInput, max: number): string | null => {
    const value = row.fields[name];
    if (value === undefined || value === null) return null;
    if (typeof value !== 'string') {
      bad(name, value, 'must be text.');
      return null;
    }
    const trimmed = value.trim();
    if ([...trimmed].length > max) bad(name, value, `must not be longer than ${max} characters.`);
    return trimmed === '' ? null : trimmed;
  };
  const phoneNumber = text('phoneNumber', 20);
  if (phoneNumber === null)
    bad('phoneNumber', row.fields.phoneNumber, 'is required: an E.164 number, such as +14155550100.');
  else if (!E164.test(phoneNumber))
    bad('phoneNumber', phoneNumber, `${JSON.stringify(phoneNumber)} is not an E.164 number, such as +14155550100.`);
  const key = text('key', BOUNDS.campaign.leadKey.maxLength);
  const firstName = text('firstName', BOUNDS.contact.firstName.maxLength);
  const lastName = text('lastName', BOUNDS.contact.lastName.maxLength);
  const email = text('email', BOUNDS.contact.email.maxLength);
  if (email !== null && !EMAIL.test(email))
    bad('email', email, `${JSON.stringify(email)} is not an email address, such as ann@example.com.`);
  const source = text('source', BOUNDS.campaign.leadSource.maxLength);
  const timeZone = text('timeZone', BOUNDS.campaign.timeZone.maxLength);
  if (timeZone !== null && !isTimeZone(timeZone))
    bad('timeZone', timeZone, `${JSON.stringify(timeZone)} is not an IANA time zone, such as America/New_York.`);
  const variables = checkVariables(row, bad);
  if (errors.length > 0) return errors;
  return {
    phoneNumber: phoneNumber!,
    key: key ?? phoneNumber!,
    firstName,
    lastName,
    email,
    source,
    variables,
    timeZone,
    timeZones: timeZone !== null ? [timeZone] : phoneTimeZones(phoneNumber!),
  };
}

/** The row's variables: a JSON lead's `variables` object, or a CSV row's extra columns (an empty cell is none). */
function checkVariables(row: Row, bad: (name: string, value: unknown, why: string) => void): LeadVariables {
  const given: Record<string, unknown> = row.extra ?? row.fields.variables ?? {};
  if (typeof given !== 'object' || Array.isArray(given)) {
    bad('variables', given, 'must be an object of names to values.');
    return {};
  }
  const { variables: bound, variableValue } = BOUNDS.campaign;
  const variables: LeadVariables = {};
  const names = Object.keys(given).filter((name) => given[name] !== '' && given[name] !== null);
  if (names.length > bound.maxProperties)
    bad('variables', names.join(', '), `holds ${names.length} variables; a lead has at most ${bound.maxProperties}.`);
  for (const name of names) {
    const value = given[name];
    const column = row.extra ? name : `variables.${name}`;
    if (!VARIABLE_NAME.test(name))
      bad(column, name, 'a variable name is a letter or _, then up to 63 letters, digits or _.');
    else if (!['string', 'number', 'boolean'].includes(typeof value))
      bad(column, value, 'a variable is a string, a number, true or false.');
    else if (typeof value === 'string' && [...value].length > variableValue.maxLength)
      bad(column, value, `must not be longer than ${variableValue.maxLength} characters.`);
    else variables[name] = value as string | number | boolean;
  }
  return variables;
}

/**
 * The rows of a CSV file as csv-parse reads them, one at a time: its header names the columns (phone_number is
 * required; a name is given once); a row that is no row (a column too many or too few, a quote not closed) is a bad
 * row of its own, named by its line.
 */
async function* csvRows(csv: string): AsyncGenerator<Row | LeadRowError> {
  const broken: LeadRowError[] = [];
  const parser = Readable.from([csv]).pipe(
    parse({
      bom: true,
      columns: (header: string[]) => checkHeader(header),
      info: true,
      raw: true,
      skip_empty_lines: true,
      skip_records_with_error: true,
      on_skip: (error) => {
        const line = (error as { lines?: number } | undefined)?.lines ?? null;
        broken.push({ index: null, line, column: null, value: null, message: `Line ${line}: ${error?.message}` });
      },
    }),
  );
  for await (const { record, info, raw } of parser as AsyncIterable<{
    record: Record<string, string>;
    info: { lines: number };
    raw: string;
  }>) {
    yield* broken.splice(0);
    const spans =
      raw
        .replace(/^[\r\n]+/, '')
        .replace(/\r?\n$/, '')
        .split('\n').length - 1;
    const fields: LeadInput = {};
    const extra: Record<string, string> = {};
    for (const [column, value] of Object.entries(record)) {
      const field = CSV_FIELDS[column];
      if (field) (fields as Record<string, string>)[field] = value;
      else extra[column] = value.trim();
    }
    yield { index: null, line: info.lines - spans, fields, extra };
  }
  yield* broken;
}

/** The header's columns, trimmed; a file without phone_number, or with a column twice, is refused whole. */
function checkHeader(header: string[]): string[] {
  const columns = header.map((name) => name.trim());
  const twice = columns.find((name, i) => columns.indexOf(name) !== i);
  if (!columns.includes('phone_number'))
    throw ValidationError.field(
      'csv',
      `Line 1 names the columns; it must name phone_number (it names ${columns.map((c) => JSON.stringify(c)).join(', ')}).`,
    );
  if (twice !== undefined)
    throw ValidationError.field('csv', `Line 1 names the column ${JSON.stringify(twice)} twice.`);
  return columns;
}
