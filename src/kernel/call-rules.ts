import { BOUNDS } from './bounds.js';

// The rules of a call's post-call analysis and of its transcript's turns,
// checked alike where the API takes them (services/call-analysis.service.ts,
// services/call-transcript.service.ts) and where the provider reports them
// (telco/callbacks.ts).

/** The bounds of an analysis and of a company's analysis fields (bounds.ts). */
export const ANALYSIS_LIMITS = {
  summary: BOUNDS.analysis.summary.maxLength,
  disposition: BOUNDS.analysis.disposition.maxLength,
  fields: BOUNDS.analysis.fields.maxItems,
  fieldValue: BOUNDS.analysis.fieldValue.maxLength,
  recordingUrl: BOUNDS.analysis.recordingUrl.maxLength,
  description: BOUNDS.analysis.fieldDescription.maxLength,
  choices: BOUNDS.analysis.choices.maxItems,
  choice: BOUNDS.analysis.choices.items.maxLength,
} as const;

export const FIELD_NAME = new RegExp(`^[a-z][a-z0-9_]{0,${BOUNDS.analysis.fieldName.maxLength - 1}}$`);

/** The problems of an analysis's custom fields, as sentences (empty when none). */
export function customAnalysisProblems(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  if (typeof value !== 'object' || Array.isArray(value)) return ['The custom analysis must be an object of fields.'];
  const entries = Object.entries(value);
  const problems: string[] = [];
  if (entries.length > ANALYSIS_LIMITS.fields)
    problems.push(`The custom analysis may hold at most ${ANALYSIS_LIMITS.fields} fields.`);
  for (const [name, v] of entries.slice(0, ANALYSIS_LIMITS.fields + 1)) {
    if (!FIELD_NAME.test(name))
      problems.push(
        `The custom analysis field name ${JSON.stringify(name.slice(0, 70))} must be lower-case letters, ` +
          `digits and underscores, starting with a letter (at most 64).`,
      );
    else if (
      !(v === null || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'string')
    )
      problems.push(`The custom analysis field ${name} must be a string, a number, true, false or null.`);
    else if (typeof v === 'string' && v.length > ANALYSIS_LIMITS.fieldValue)
      problems.push(
        `The custom analysis field ${name} must not be longer than ${ANALYSIS_LIMITS.fieldValue} characters.`,
      );
  }
  return problems;
}

export const TURN_SPEAKERS = ['agent', 'caller'] as const;
export const TURN_TEXT_MAX = BOUNDS.transcript.text.maxLength;
export const TURN_SEQUENCE_MAX = 100_000;
