import type { CallbackKind } from '../telco/callbacks.js';
import type { Bound } from '../kernel/bounds.js';
import type { IdForm } from '../kernel/ids.js';

// The shape of a row of the REST route table. A row is data: the generic
// handler (compile.ts) and the OpenAPI generator (openapi.ts) read it.

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type ParamType = 'string' | 'integer' | 'number' | 'boolean' | 'id' | 'array' | 'object' | 'json';

/**
 * A parameter. Its bound (maxLength, minimum, maximum, maxItems: bounds.ts)
 * is its service's rule, stated in the document; a parameter without one is
 * held by params.ts to its type's default bound, stated alike.
 */
export interface Param extends Omit<Bound, 'items'> {
  type: ParamType;
  required?: boolean;
  /** Null is a value here (for example "clear the chatbot"), not a missing field. */
  nullable?: boolean;
  /** Other body names the spec accepts for this field (phoneNo: baseNo). */
  aliases?: readonly string[];
  /** Allowed values (as the spec writes them: strings, or the integers of a closed set). */
  enum?: readonly (string | number)[];
  /** A value that stands for every one of an enum's (the spec's `All`): the variable is left out. */
  every?: string;
  /** For an enum whose GraphQL names differ from its values: the name of each such value (`in-progress`: in_progress). */
  graphqlNames?: Readonly<Record<string, string>>;
  /** GraphQL variable (top level) or input field (nested) name; default: the camelCase of the REST name. */
  variable?: string;
  description?: string;
  /** For ids: which forms this route accepts, and the kind bound into encrypted ids. */
  idForms?: readonly IdForm[];
  idKind?: string;
  /** What a 404 calls the record (default: from idKind). */
  idLabel?: string;
  /** For arrays: the element. */
  items?: Param;
  /** For objects: their fields. */
  fields?: Record<string, Param>;
  /** The document's example of the field, where the one made from its type would not show it well. */
  example?: unknown;
  /** For a string: the pattern its service holds it to, stated in the document (its check is the operation's). */
  pattern?: string;
  /** For a free JSON object: the JSON Schema the document states for it (its checks are the operation's). */
  schema?: Readonly<Record<string, unknown>>;
}

/**
 * A parameter as a row writes it: what the operation's variable already says
 * (the type, the enum values, required for a non-null variable, the fields of
 * an input object and the element of a list) is read from the schema at start
 * (compile.ts), so a row states only what REST alone knows: names, aliases,
 * id forms, descriptions, and a type only where REST's differs (ids, JSON).
 */
export interface RowParam extends Omit<Param, 'type' | 'items' | 'fields'> {
  type?: ParamType;
  items?: RowParam;
  fields?: Record<string, RowParam>;
}

export interface RouteParams<P = Param> {
  path?: Record<string, P>;
  query?: Record<string, P>;
  body?: Record<string, P>;
}

export interface RouteResponse {
  /** The operation's root field whose value the response carries. */
  field: string;
  /** `envelope`: { success, message?, data? }; `plain`: the field's value as the whole body. */
  shape: 'envelope' | 'plain';
  message?: string;
  /** With `envelope`: put the field's value under `data`. */
  data?: boolean;
  /** A field of the value whose own fields the body carries in its place, beside the rest (a created webhook and its secret). */
  spread?: string;
}

export interface Route {
  operationId: string;
  /** The spec's methods for this route; the first is the canonical one. */
  methods: HttpMethod[];
  /** The spec's paths ({name} for path parameters); the first is canonical, the rest aliases. */
  paths: string[];
  tag: string;
  summary: string;
  description?: string;
  /** False only for sign-in. */
  auth?: boolean;
  params: RouteParams<RowParam>;
  /** `csv`: the body is a CSV file (text/csv), the value of the one body parameter, `csv`; default JSON. */
  bodyType?: 'csv';
  /** The GraphQL operation the route runs; its variables are the params. */
  document: string;
  response: RouteResponse;
  status?: number;
  /**
   * Statuses this route can answer beyond those every route of its kind
   * answers (400, 401, 403 with a permission, 404 with an id, 413, 422, 500):
   * 403 and 404 for a company named in a filter, 409 conflicts, 410 for a
   * cursor past the retention, 429 rate limits, 502 provider failures. The
   * contract test fails on an undeclared one.
   */
  answers?: ReadonlyArray<403 | 404 | 409 | 410 | 429 | 502>;
}

/** A row with every parameter complete (its types read from the schema). */
export type ResolvedRoute = Omit<Route, 'params'> & { params: RouteParams<Param> };

/**
 * A row of the other kind: a provider callback (ingress). Form-encoded, in the
 * provider's parameter names, signed with X-Telco-Signature instead of a
 * Bearer token, and run as the system for the company the callback belongs to.
 */
export interface IngressRoute {
  operationId: string;
  method: 'POST';
  path: string;
  tag: string;
  summary: string;
  description: string;
  /** The provider's parameters (documentation; the telco adapter reads and checks them). */
  params: Record<string, Param>;
  /** Which callback of the telco adapter this row receives. */
  callback: CallbackKind;
  /** A callback answered with a body (200) rather than 204: its media type and an example. */
  answer?: { contentType: string; example: unknown; schema?: Readonly<Record<string, unknown>> };
}
